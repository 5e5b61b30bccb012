//! Context compaction (model-tools.md §6). TODO: compaction helper.
