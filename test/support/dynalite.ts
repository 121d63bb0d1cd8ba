import type { Server } from "node:http";
import { createRequire } from "node:module";
import { connect, createServer, type Server as NetServer, type Socket } from "node:net";
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";

/** dynalite ships no types: a DynamoDB API server as a plain node:http server. */
type DynaliteFactory = (options?: {
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}) => Server;
const dynalite = createRequire(import.meta.url)("dynalite") as DynaliteFactory;

export interface Dynalite {
  /** The gate's URL: use it as the DynamoDB endpoint. */
  endpoint: string;
  /** A table created at start (key `sessionId` S). */
  tableName: string;
  /** Creates a PAY_PER_REQUEST table keyed by `sessionId` (S), waits until ACTIVE, returns its name. */
  createTable(name?: string): Promise<string>;
  /** Alias of close. */
  stop(): Promise<void>;
  /** Simulates an outage: the gate stops listening and drops open connections. Data survives. */
  cutOff(): Promise<void>;
  /** Ends the outage: the gate listens again on the same port. */
  restore(): Promise<void>;
  /** Stops the gate and dynalite. */
  close(): Promise<void>;
}

let tableCounter = 0;

/** Runs dynalite in-process on 127.0.0.1 behind a TCP gate that can be cut off and restored. */
export async function startDynalite(): Promise<Dynalite> {
  const backend = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await listen(backend, 0);
  const backendPort = portOf(backend);

  const sockets = new Set<Socket>();
  const gate = createServer((client) => {
    const upstream = connect(backendPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await listen(gate, 0);
  const gatePort = portOf(gate);
  const endpoint = `http://127.0.0.1:${gatePort}`;

  const admin = new DynamoDBClient({ region: "us-east-1", endpoint, maxAttempts: 1 });
  let open = true;
  let closed = false;

  const cutOff = async (): Promise<void> => {
    if (!open) return;
    open = false;
    const closing = new Promise<void>((resolve) => gate.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await closing;
  };

  const restore = async (): Promise<void> => {
    if (open || closed) return;
    await listen(gate, gatePort);
    open = true;
  };

  const createTable = async (name = `sessions-${process.pid}-${++tableCounter}`): Promise<string> => {
    await admin.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: "sessionId", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "sessionId", KeyType: "HASH" }],
        BillingMode: "PAY_PER_REQUEST",
      }),
    );
    for (let attempt = 0; attempt < 100; attempt++) {
      const { Table } = await admin.send(new DescribeTableCommand({ TableName: name }));
      if (Table?.TableStatus === "ACTIVE") return name;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`table ${name} did not become ACTIVE`);
  };

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    admin.destroy();
    await cutOff();
    backend.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      backend.close((error) => (error ? reject(error) : resolve())),
    );
  };

  try {
    const tableName = await createTable();
    return { endpoint, tableName, createTable, stop: close, cutOff, restore, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function listen(server: Server | NetServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      resolve();
    });
  });
}

function portOf(server: Server | NetServer): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("server has no TCP address");
  return address.port;
}
