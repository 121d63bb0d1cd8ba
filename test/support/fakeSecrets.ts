import { createServer, type ServerResponse } from "node:http";
import { closeServer, listenLoopback } from "./net.js";
import { readBody, verifySigV4 } from "./sigv4Verify.js";

/**
 * A local fake of the two AWS services a secret is read from (AWS offers no emulator): Secrets
 * Manager's GetSecretValue and SSM's GetParameter (JSON 1.1 over POST, told apart by X-Amz-Target),
 * answering only requests SigV4-signed for the right service and region, on 127.0.0.1. Point the SDK at
 * it with AWS_ENDPOINT_URL_SECRETS_MANAGER and AWS_ENDPOINT_URL_SSM.
 */
export interface FakeSecrets {
  url: string;
  /** Sets (or rotates) a secret, by ARN, or a SecureString parameter, by name. */
  set(id: string, value: string): void;
  /** Correctly signed reads per secret ARN or parameter name. */
  reads(id: string): number;
  /** Requests whose signature was refused, with the last reason. */
  readonly rejected: number;
  readonly lastRejection: string | undefined;
  close(): Promise<void>;
}

const TARGETS = {
  "secretsmanager.GetSecretValue": "secretsmanager",
  "AmazonSSM.GetParameter": "ssm",
} as const;

export async function startFakeSecrets(region: string): Promise<FakeSecrets> {
  const values = new Map<string, string>();
  const counts = new Map<string, number>();
  let rejected = 0;
  let lastRejection: string | undefined;

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const target = String(req.headers["x-amz-target"] ?? "") as keyof typeof TARGETS;
    const service = TARGETS[target];
    if (req.method !== "POST" || service === undefined) {
      return error(res, 400, "UnknownOperationException", `No operation ${target}`);
    }
    const verdict = await verifySigV4(
      { method: "POST", rawUrl: req.url ?? "/", headers: req.headers, body },
      { region, service },
    );
    if (!verdict.ok) {
      rejected++;
      lastRejection = verdict.reason;
      return error(
        res,
        400,
        "InvalidSignatureException",
        "The request signature we calculated does not match.",
      );
    }
    const input = JSON.parse(body.toString("utf8") || "{}") as {
      SecretId?: string;
      Name?: string;
      WithDecryption?: boolean;
    };
    const id = service === "secretsmanager" ? input.SecretId : input.Name;
    const value = id === undefined ? undefined : values.get(id);
    if (id === undefined || value === undefined) {
      return service === "secretsmanager"
        ? error(res, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
        : error(res, 400, "ParameterNotFound", "");
    }
    counts.set(id, (counts.get(id) ?? 0) + 1);
    if (service === "secretsmanager") {
      return json(res, {
        ARN: id,
        Name: id.split(":secret:")[1],
        SecretString: value,
        VersionId: "v1",
        CreatedDate: 1_700_000_000,
      });
    }
    if (input.WithDecryption !== true)
      return error(res, 400, "ValidationException", "SecureString read without decryption");
    return json(res, {
      Parameter: { Name: id, Type: "SecureString", Value: value, Version: 1, DataType: "text" },
    });
  });

  const url = await listenLoopback(server);
  return {
    url,
    set: (id, value) => {
      values.set(id, value);
    },
    reads: (id) => counts.get(id) ?? 0,
    get rejected() {
      return rejected;
    },
    get lastRejection() {
      return lastRejection;
    },
    close: () => closeServer(server),
  };
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
  res.end(JSON.stringify(body));
}

function error(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { "content-type": "application/x-amz-json-1.1", "x-amzn-errortype": type });
  res.end(JSON.stringify({ __type: type, message }));
}
