//! Tests for the demo servers.
