import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    dbKind: "sqlite" | "postgres";
  }
}
