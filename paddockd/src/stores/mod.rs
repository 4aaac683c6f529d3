//! Crash-safe JSON sidecar stores (being built).
