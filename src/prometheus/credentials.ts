import type { defaultProvider } from "@aws-sdk/credential-provider-node";
import { firstLine, ToolError } from "../errors.js";
import { Memo } from "../util/memoize.js";

type CredentialsProvider = ReturnType<typeof defaultProvider>;

/** Providers kept per handler, one per profile; the least recently used go first. */
export const MAX_CACHED_PROVIDERS = 8;

/**
 * One memoized credentials provider per profile. The provider chain is imported on first use (not at
 * cold start), and a failure to find credentials becomes a ToolError.
 */
export class Credentials {
  private readonly providers = new Memo<CredentialsProvider>(MAX_CACHED_PROVIDERS);

  /** `advice`: what a failure to find or use credentials should also say (a configuration mistake behind it). */
  constructor(readonly advice?: string) {}

  /** How many providers are kept (at most MAX_CACHED_PROVIDERS). */
  get cachedProviders(): number {
    return this.providers.size;
  }

  for(profile: string | undefined): CredentialsProvider {
    return this.providers.get([profile], () => {
      let chain: Promise<CredentialsProvider> | undefined;
      return async (options) => {
        chain ??= import("@aws-sdk/credential-provider-node").then(({ defaultProvider }) =>
          defaultProvider(profile === undefined ? {} : { profile }),
        );
        try {
          return await (await chain)(options);
        } catch (error) {
          const message = credentialsMessage(profile, error);
          throw new ToolError(
            this.advice === undefined ? message : `${message} ${this.advice}`,
            "no_credentials",
          );
        }
      };
    });
  }
}

function credentialsMessage(profile: string | undefined, error: unknown): string {
  const source = profile === undefined ? "the default credential chain" : `profile "${profile}"`;
  const detail = error instanceof Error && error.message ? ` (${firstLine(error.message)})` : "";
  return `AWS credentials are missing: none could be loaded from ${source}${detail}. In Lambda, check the function's execution role; locally, configure credentials or a profile.`;
}
