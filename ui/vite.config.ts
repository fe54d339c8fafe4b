import { defineConfig } from "vite";

// The bundle is served by the kgmem server under /ui/ (embedded with
// go:embed from ui/dist), so every asset URL is absolute under /ui/ and the
// page needs no inline script or style (the server's Content-Security-Policy
// forbids both).
export default defineConfig({
  base: "/ui/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
  },
});
