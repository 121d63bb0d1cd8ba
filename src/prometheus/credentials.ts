import type { defaultProvider } from "@aws-sdk/credential-provider-node";
import { ToolError } from "../errors.js";

export type CredentialsProvider = ReturnType<typeof defaultProvider>;

const providers = new Map<string, CredentialsProvider>();

/**
 * One memoized credentials provider per profile for the container's lifetime. The provider chain is
 * imported on first use (cold start) and a failure to find credentials becomes a ToolError.
 */
export function credentialsFor(profile: string | undefined): CredentialsProvider {
  const key = profile ?? "";
  let provider = providers.get(key);
  if (!provider) {
    let chain: Promise<CredentialsProvider> | undefined;
    provider = async (options) => {
      chain ??= import("@aws-sdk/credential-provider-node").then(({ defaultProvider }) =>
        defaultProvider(profile === undefined ? {} : { profile }),
      );
      try {
        return await (await chain)(options);
      } catch (error) {
        throw new ToolError(credentialsMessage(profile, error));
      }
    };
    providers.set(key, provider);
  }
  return provider;
}

function credentialsMessage(profile: string | undefined, error: unknown): string {
  const source = profile === undefined ? "the default credential chain" : `profile "${profile}"`;
  const detail = error instanceof Error && error.message ? ` (${firstLine(error.message)})` : "";
  return `AWS credentials are missing: none could be loaded from ${source}${detail}. In Lambda, check the function's execution role; locally, configure credentials or a profile.`;
}

function firstLine(text: string): string {
  return text.split("\n")[0]?.trim() ?? "";
}
