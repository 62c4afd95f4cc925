// Starts the app without an inline script, so the page's Content-Security-Policy
// can forbid inline scripts (`script-src 'self' 'wasm-unsafe-eval'`). Trunk's
// `pattern_script` (Trunk.toml) writes the hashed names of the wasm-bindgen
// module and the wasm into a <meta>; this module, itself hashed, loads them.
const names = document.querySelector('meta[name="taskview-boot"]').dataset;
// A task page's first screen (written by the server) shows the newest rows;
// a link to a message (`#msg-<id>`) opens elsewhere, so it gives way at once.
if (location.hash) document.getElementById('first-screen')?.remove();
const bindings = await import(names.js);
await bindings.default({ module_or_path: names.wasm });
