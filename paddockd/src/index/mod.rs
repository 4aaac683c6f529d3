//! The live chat index (being built).
