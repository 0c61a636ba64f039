import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    dbKind: "sqlite" | "postgres";
    /** Where HTTP tests record the API keys they use (tests/support/secrets.ts). */
    secretsFile: string;
  }
}
