//! The desktop app's integration tests: one binary, one module per area
//! (`suite/`), shared helpers in `common/`. The tests that use the test
//! session's desktop (the app, its display, notifications, the tray) take
//! turns through `common::desktop()`.

mod common;
mod suite;
