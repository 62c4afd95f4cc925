//! Importer tests: each fixture imports to the expected cards, and every
//! capture rule of docs/formats.md and the subagent spec has its own test.

#[path = "../common/mod.rs"]
mod common;

mod acp;
mod capture_stories;
mod captures;
mod claude_code;
mod codex;
mod copilot;
mod depth;
mod detect;
mod follow;
mod gadget;
mod gemini_cli;
mod kimi;
mod older;
mod opencode;
mod otlp_follow;
mod qwen_code;
mod recorded_type;
mod scripted;
mod session_events;
