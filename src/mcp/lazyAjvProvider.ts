import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation";
import type { AjvJsonSchemaValidator as SdkAjvValidator } from "@modelcontextprotocol/sdk/validation/ajv";

type SdkProvider = { AjvJsonSchemaValidator: typeof SdkAjvValidator };
type Ajv = ConstructorParameters<typeof SdkAjvValidator>[0];

/**
 * Stands in, in the shipped bundles only, for the MCP SDK's Ajv provider (scripts/esbuild-plugins.cjs,
 * ajvOnFirstUse): the same class, whose SDK provider, and with it Ajv and ajv-formats, is required on
 * the first `getValidator` instead of at import, which a cold start would pay for a validator this
 * server never uses (bench case cold-start). The bundler makes that require the provider's own file,
 * sdk-ajv-provider.cjs, written beside the bundle. Run from sources (tests, tsc), nothing imports it.
 *
 * @example
 * ```ts
 * const validator = new AjvJsonSchemaValidator(); // nothing of Ajv loaded yet
 * validator.getValidator({ type: "string" })("x"); // { valid: true, data: "x", errorMessage: undefined }
 * ```
 */
export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  private provider: SdkAjvValidator | undefined;

  constructor(private readonly ajv?: Ajv) {}

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (this.provider === undefined) {
      // A require, not an import: nothing of it is read until this line runs.
      const sdk = require("@modelcontextprotocol/sdk/validation/ajv") as SdkProvider;
      this.provider = new sdk.AjvJsonSchemaValidator(this.ajv);
    }
    return this.provider.getValidator<T>(schema);
  }
}
