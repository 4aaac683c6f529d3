//! Adopting terminal claude sessions (being built).
