//! The refinement forest (work in progress).
