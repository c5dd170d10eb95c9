// Vite builds the panel into ui/dist, which tauri.conf.json embeds into the
// desktop app; vitest runs the unit tests of the pure logic in tests/.
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Relative asset URLs: the app serves ui/dist from its own origin.
  base: "./",
  clearScreen: false,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // Never inline assets as data: URIs; the CSP only allows 'self'.
    assetsInlineLimit: 0,
    // No eval-based source maps in the shipped app.
    sourcemap: false,
    // The panel and the two native dialogs the desktop shell opens (paths
    // from ui/, where npm runs the build).
    rollupOptions: {
      input: {
        panel: "index.html",
        confirm: "confirm.html",
        challenge: "challenge.html",
      },
    },
  },
  test: {
    environment: "node",
    include: ["tests/**/*.test.ts"],
  },
});
