//! Sightline's integration tests: one binary, real processes, real third-party peers.
//!
//! The npm peers under `tests/peers/` are installed by `tests/run.sh` (the README's test
//! command). A test that needs them fails with that instruction when they are missing; it never
//! skips silently.

mod util;

mod analysis_links;
mod architecture;
mod check_diff;
mod conformance;
mod connector;
mod connector_scenario;
mod docs_quoted;
mod doctor;
mod export;
mod export_ranges;
mod filter;
mod fuzz_crate;
mod handout_escaping;
mod handouts;
mod har;
mod hidden_chars;
mod host_runs;
mod host_tools;
mod http_proxy;
mod i18n_keys;
mod import_inspector;
mod import_wrap;
mod language;
mod language_edges;
mod language_errors;
mod language_gaps;
mod language_reports;
mod language_throughout;
mod llm_proxy;
mod llm_proxy_gemini;
mod misbehaving_server;
mod mock;
mod otlp;
mod otlp_live;
mod otlp_live_hosts;
mod otlp_phoenix;
mod outputs_over_inputs;
mod properties;
mod proxy_basics;
mod proxy_guards;
mod readers_and_exits;
mod real_hosts;
mod real_peers;
mod replay;
mod replay_http;
mod replay_model;
mod replay_stops;
mod security;
mod serve_edges;
mod sessions;
mod shipped_scenarios;
mod stats;
mod summary_class;
mod tap_durability;
mod trace_files;
mod trace_schema;
/// The benches' synthetic traces (`benches/traces.rs`), for tests that need their mixes.
#[path = "../benches/traces.rs"]
mod traces;
mod trust_otlp;
mod trust_run;
mod trust_secrets;
mod trust_wrap;
mod ui_app;
mod ui_classroom;
mod ui_compare_with;
mod ui_doctor_tab;
mod ui_elicit;
mod ui_picture;
mod ui_saved_filters;
mod ui_stats;
mod web_page;
