/** @type {import('next').NextConfig} */
const nextConfig = {
  // The v1 API is served by the Hono router in server.ts, not by Next; Next serves the dashboard.
  serverExternalPackages: ["better-sqlite3", "pg", "pino", "ioredis", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg"],
  poweredByHeader: false,
  typedRoutes: false,
};
export default nextConfig;
