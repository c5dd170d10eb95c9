//! Deterministic extraction (placeholder: being written).
