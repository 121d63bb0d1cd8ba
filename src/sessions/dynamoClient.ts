import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

/** A DynamoDB document client and the command classes of its library. */
export interface DynamoCommands {
  client: DynamoDBDocumentClient;
  lib: typeof import("@aws-sdk/lib-dynamodb");
}

/**
 * A DynamoDB document client for `region` (or `endpoint`: dynalite, DynamoDB Local), its AWS SDK
 * imported now: callers load it on first use, so a container that never stores anything never loads
 * the SDK. One retry within the caller's own time limit, which its abort signal enforces; a connection
 * that cannot be made in a second leaves time for that retry.
 */
export async function loadDynamo(region: string, endpoint: string | undefined): Promise<DynamoCommands> {
  const [dynamodb, lib] = await Promise.all([
    import("@aws-sdk/client-dynamodb"),
    import("@aws-sdk/lib-dynamodb"),
  ]);
  const base = new dynamodb.DynamoDBClient({
    region,
    ...(endpoint === undefined ? {} : { endpoint }),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1000 },
  });
  const client = lib.DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { client, lib };
}
