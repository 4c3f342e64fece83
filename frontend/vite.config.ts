import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Built into Django's static files; fixed names so templates can reference them directly.
export default defineConfig({
  plugins: [react()],
  base: "/static/dist/",
  build: {
    outDir: "../mase_web/static/dist",
    emptyOutDir: true,
    rollupOptions: {
      input: "src/main.tsx",
      output: {
        entryFileNames: "assets/main.js",
        chunkFileNames: "assets/[name]-[hash].js",
        assetFileNames: (asset) => (asset.names?.[0]?.endsWith(".css") ? "assets/main.css" : "assets/[name]-[hash][extname]"),
      },
    },
  },
});
