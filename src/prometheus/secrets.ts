import { ToolError } from "../errors.js";

/**
 * Where the Prometheus credentials (PROMETHEUS_SECRET) come from: an AWS Secrets Manager secret (its
 * ARN), an SSM SecureString parameter (`ssm:/path`, or `ssm:` and the parameter's ARN), or the value
 * itself (local runs only: config.ts refuses it in Lambda).
 */
export type SecretSource =
  | { kind: "secretsmanager"; arn: string; region: string }
  | { kind: "ssm"; name: string; region: string }
  /** `setting`: where it was given, as messages name it (default PROMETHEUS_SECRET). */
  | { kind: "literal"; value: string; setting?: string | undefined };

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
const PARAMETER_ARN = /^arn:aws[a-z-]*:ssm:([a-z0-9-]+):\d{12}:parameter(\/[A-Za-z0-9/_.-]+)$/;
const PARAMETER_NAME = /^\/[A-Za-z0-9/_.-]{1,2047}$/;

/**
 * The source PROMETHEUS_SECRET names; undefined when the text names neither a secret's ARN nor an
 * SSM parameter (it is then the value itself). A parameter named by its path is read in
 * `defaultRegion` (the function's). Throws when it starts like one but is malformed, so a typo in an
 * ARN is never sent to Prometheus as a password.
 */
export function secretSourceOf(text: string, defaultRegion: string): SecretSource | undefined {
  if (text.startsWith("arn:") && text.includes(":secretsmanager:")) {
    const match = SECRET_ARN.exec(text);
    if (!match)
      throw new Error(
        "a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)",
      );
    return { kind: "secretsmanager", arn: text, region: match[1] as string };
  }
  if (text.startsWith("ssm:")) {
    const name = text.slice("ssm:".length);
    const arn = PARAMETER_ARN.exec(name);
    if (arn) return { kind: "ssm", name, region: arn[1] as string };
    if (!PARAMETER_NAME.test(name))
      throw new Error("ssm: followed by a parameter's path (ssm:/team/prometheus/token) or ARN");
    return { kind: "ssm", name, region: defaultRegion };
  }
  return undefined;
}

/** Reads a secret's current value from where it is kept. */
export type SecretReader = (source: Exclude<SecretSource, { kind: "literal" }>) => Promise<string>;

/**
 * The credentials of one deployment: read on first use and kept for the container (a secret is read
 * once, not on every call), read again when the upstream refuses them (HTTP 401: the secret may have
 * been rotated), at most once per refusal however many calls were refused at the same time.
 */
export class Secret {
  private current: Promise<string> | undefined;

  constructor(
    private readonly source: SecretSource,
    private readonly read: SecretReader = readFromAws,
  ) {}

  /** Where the secret is kept, as errors and GetServerInfo may name it (never its value). */
  get origin(): string {
    if (this.source.kind === "secretsmanager") return `Secrets Manager secret ${this.source.arn}`;
    if (this.source.kind === "ssm") return `SSM parameter ${this.source.name}`;
    return `${this.source.setting ?? "PROMETHEUS_SECRET"}'s value`;
  }

  /** Whether there is anywhere to read it again from. */
  get rereadable(): boolean {
    return this.source.kind !== "literal";
  }

  value(): Promise<string> {
    if (this.current === undefined) {
      const reading = this.readOnce();
      this.current = reading;
      // A failed read is not kept: the next call tries again.
      reading.catch(() => {
        if (this.current === reading) this.current = undefined;
      });
    }
    return this.current;
  }

  /**
   * Lets go of `value`, one the upstream could never take (a malformed token): like a failed read, it
   * is not kept, and the next call reads the secret again (it may have been fixed since).
   */
  async drop(value: string): Promise<void> {
    const held = this.current;
    if (held === undefined || !this.rereadable) return;
    if ((await held.catch(() => undefined)) === value && this.current === held) this.current = undefined;
  }

  /** Reads it again unless another caller already has since `refused` was handed out. */
  async refresh(refused: string): Promise<string> {
    const held = await this.value().catch(() => undefined);
    if (held !== refused) return this.value();
    this.current = undefined;
    return this.value();
  }

  private async readOnce(): Promise<string> {
    if (this.source.kind === "literal") return this.source.value;
    try {
      const value = await this.read(this.source);
      if (value === "") throw new Error("it is empty");
      return value;
    } catch (error) {
      // The reader's message names the service's error (AccessDenied, not found), never a value.
      const why =
        error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : "";
      throw new ToolError(
        `The Prometheus credentials could not be read from the ${this.origin}${why ? ` (${why})` : ""}. Check that it exists and that the function's role may read it.`,
        "misconfigured",
      );
    }
  }
}

/** Reads a Secrets Manager secret's string or an SSM parameter (decrypted), with the SDK's own clients, loaded on first use. */
async function readFromAws(source: Exclude<SecretSource, { kind: "literal" }>): Promise<string> {
  if (source.kind === "secretsmanager") {
    const { SecretsManagerClient, GetSecretValueCommand } = await import("@aws-sdk/client-secrets-manager");
    const client = new SecretsManagerClient({ region: source.region });
    const answer = await client.send(new GetSecretValueCommand({ SecretId: source.arn }));
    if (answer.SecretString === undefined) throw new Error("it holds binary data, not a string");
    return answer.SecretString;
  }
  const { SSMClient, GetParameterCommand } = await import("@aws-sdk/client-ssm");
  const client = new SSMClient({ region: source.region });
  const answer = await client.send(new GetParameterCommand({ Name: source.name, WithDecryption: true }));
  return answer.Parameter?.Value ?? "";
}
