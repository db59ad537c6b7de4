//! The dual graph of the initial mesh and its weights.
