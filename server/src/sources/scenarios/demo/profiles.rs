//! What the demo's looping tasks are about: who reviews, what they
//! conclude, how often a subagent fails, nests or runs in the background.

/// Who takes part in a wave, and what they may conclude.
pub struct Reviewer {
    pub kind: &'static str,
    pub description: &'static str,
    pub prompt: &'static str,
    pub verdicts: &'static [&'static str],
}

/// What a looping task does in each cycle.
pub struct Profile {
    pub task_id: &'static str,
    pub session_id: &'static str,
    pub title: &'static str,
    pub prompts: &'static [&'static str],
    /// Smallest and largest wave.
    pub wave: (u64, u64),
    pub reviewers: &'static [Reviewer],
    pub nested_percent: u64,
    pub async_percent: u64,
    pub fail_percent: u64,
}

pub(super) const REVIEW_PROFILE: Profile = Profile {
    task_id: "task-demo-wave",
    session_id: "sess-demo-wave",
    title: "Review wave on the closure diff",
    prompts: &[
        "Review the closure diff before we merge.",
        "Run the review wave again on the latest push.",
        "Check the retry path once more, then review.",
    ],
    wave: (2, 3),
    reviewers: &[
        Reviewer {
            kind: "code-reviewer",
            description: "Code-reviewer pass over the closure diff",
            prompt: "Review the diff of src/sync for correctness and leaks.",
            verdicts: &[
                "VERDICT: APPROVE\nThe closure now captures the cursor by value.\nNo blocking findings.",
                "VERDICT: REQUEST_CHANGES\nTwo blocking findings in SyncRunner.ts:\n- the retry loop ignores cancellation\n- the cursor is read after the await",
            ],
        },
        Reviewer {
            kind: "test-supervisor",
            description: "Test-supervisor review of new invariant tests",
            prompt: "Check that the new invariant tests fail without the fix.",
            verdicts: &[
                "APPROVE\nAll three tests fail on main and pass on the branch.",
                "REQUEST_CHANGES\nOne test passes on main too: it does not pin the bug.",
            ],
        },
        Reviewer {
            kind: "security-auditor",
            description: "security-auditor: token handling in the sync client",
            prompt: "Look for secrets written to logs or error messages.",
            verdicts: &[
                "VERDICT: APPROVE\nTokens never reach the logger.\n\nChecked: SyncClient.ts, errors.ts.",
            ],
        },
    ],
    nested_percent: 25,
    async_percent: 15,
    fail_percent: 15,
};

pub(super) const RESEARCH_PROFILE: Profile = Profile {
    task_id: "task-demo-research",
    session_id: "sess-demo-research",
    title: "Research fan-out for the cache layer",
    prompts: &[
        "Find out how the cache is invalidated today.",
        "Survey eviction policies we could use.",
    ],
    wave: (2, 3),
    reviewers: &[
        Reviewer {
            kind: "Explore",
            description: "Explore cache invalidation call sites",
            prompt: "List every place that writes to or clears the cache.",
            verdicts: &["Found 7 call sites.\nThree clear the whole cache on any write."],
        },
        Reviewer {
            kind: "general-purpose",
            description: "Compare LRU and TTL eviction for our access pattern",
            prompt: "Read the access logs summary and compare eviction policies.",
            verdicts: &["LRU wins for the board view.\nTTL is simpler for transcripts."],
        },
        Reviewer {
            kind: "researcher",
            description: "Benchmarks of the current cache",
            prompt: "Run the cache benchmarks and summarise the hit rates.",
            verdicts: &[
                "Hit rate 61% on boards, 93% on transcripts.\nMisses cluster after reconnects.",
            ],
        },
    ],
    nested_percent: 60,
    async_percent: 40,
    fail_percent: 10,
};

pub(super) const MIGRATION_PROFILE: Profile = Profile {
    task_id: "task-demo-migration",
    session_id: "sess-demo-migration",
    title: "Parallel migration (4 shards)",
    prompts: &["Migrate the message tables, one subagent per shard."],
    wave: (3, 4),
    reviewers: &[
        Reviewer {
            kind: "migration-shard",
            description: "Shard 1: messages 0-250k",
            prompt: "Migrate shard 1 and verify the row counts.",
            verdicts: &["DONE\n250,000 rows migrated, counts match."],
        },
        Reviewer {
            kind: "migration-shard",
            description: "Shard 2: messages 250k-500k",
            prompt: "Migrate shard 2 and verify the row counts.",
            verdicts: &["DONE\n250,000 rows migrated, counts match."],
        },
        Reviewer {
            kind: "migration-shard",
            description: "Shard 3: messages 500k-750k",
            prompt: "Migrate shard 3 and verify the row counts.",
            verdicts: &["DONE\n248,113 rows migrated; 1,887 duplicates skipped."],
        },
        Reviewer {
            kind: "migration-shard",
            description: "Shard 4: messages 750k-1M",
            prompt: "Migrate shard 4 and verify the row counts.",
            verdicts: &["DONE\n250,000 rows migrated, counts match."],
        },
    ],
    nested_percent: 0,
    async_percent: 0,
    fail_percent: 35,
};

/// The looping tasks, in the order they start.
pub(super) const LIVE: [&Profile; 3] = [&REVIEW_PROFILE, &RESEARCH_PROFILE, &MIGRATION_PROFILE];

/// The stream scenario's content comes from the same cycles.
pub const STREAM_PROFILE: &Profile = &REVIEW_PROFILE;

pub(super) const NESTED: Reviewer = Reviewer {
    kind: "general-purpose",
    description: "Trace the callers of the changed function",
    prompt: "Find every caller of runSync and say which ones await it.",
    verdicts: &["4 callers found.\n1 does not await runSync (scheduler.ts:88)."],
};

pub(super) const FAILURES: [&str; 2] = [
    "ERROR: the test runner was killed (exit 137)\nOut of memory while building the fixture graph.",
    "ERROR: tool budget exhausted after 40 calls\nPartial notes were not saved.",
];

pub(super) const MODELS: [&str; 3] = [
    "claude-sonnet-4-7",
    "claude-opus-4-8[1m]",
    "claude-haiku-4-5",
];
