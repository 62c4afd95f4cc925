use super::*;

fn parse(args: &[&str]) -> Result<Config, clap::Error> {
    let argv = ["taskview", "serve"].iter().chain(args);
    Cli::try_parse_from(argv).map(|cli| match cli.command {
        Command::Serve(a) => a.into_config(),
        _ => panic!("serve expected"),
    })
}

#[test]
fn defaults_are_the_demo_on_localhost_8080_with_the_built_in_app_or_dist() {
    let c = parse(&[]).unwrap();
    assert_eq!(c.addr, "127.0.0.1:8080".parse().unwrap());
    let built_in = EmbeddedApp::built_in();
    let dist = built_in.is_none().then(|| PathBuf::from("dist"));
    assert_eq!((c.dist, c.embedded), (dist, built_in));
    assert!(matches!(c.source, Source::Demo { seed: 1, speed } if speed == 1.0));
    assert_eq!(c.drop_ws_every, None);
    assert!(!c.frame_per_event);
    assert_eq!(c.policy, Policy::default());
    assert_eq!(c.access, Access::default());
}

#[test]
fn access_flags_reach_the_config() {
    let c = parse(&[
        "--allow-host",
        "tv.example",
        "--allow-host",
        "192.168.1.5",
        "--allow-origin",
        "https://kandev.example",
        "--token",
        "s3cret-token-1234",
    ])
    .unwrap();
    assert_eq!(
        c.access.allow_hosts,
        [
            "tv.example".parse().unwrap(),
            "192.168.1.5".parse().unwrap()
        ]
    );
    assert_eq!(
        c.access.allow_origins,
        ["https://kandev.example".parse().unwrap()]
    );
    assert_eq!(
        c.access.token,
        TokenRule::Given("s3cret-token-1234".parse().unwrap())
    );
    let c = parse(&["--addr", "0.0.0.0:8080", "--no-auth"]).unwrap();
    assert_eq!(c.access.token, TokenRule::Off);
    assert!(parse(&["--no-auth", "--token", "t"]).is_err());
}

#[test]
fn limits_and_proxies_reach_the_config_with_sane_defaults() {
    let c = parse(&[]).unwrap();
    assert_eq!(c.connections, Limits::default());
    assert_eq!(c.connections.header_timeout, Duration::from_secs(10));
    assert_eq!(c.connections.body_timeout, Duration::from_secs(30));
    assert_eq!(c.connections.idle_timeout, Duration::from_secs(60));
    assert_eq!(c.connections.max_connections, 512);
    assert_eq!(c.otlp.keeping, Keeping::default());
    assert_eq!(c.otlp.keeping.max_bytes, 1 << 30);
    assert!(!c.policy.remote_images);
    let c = parse(&[
        "--header-timeout-secs",
        "5",
        "--body-timeout-secs",
        "7",
        "--idle-timeout-secs",
        "9",
        "--max-connections",
        "100",
        "--otlp-max-mb",
        "20",
        "--otlp-keep-days",
        "2",
        "--trusted-proxy",
        "10.0.0.1",
        "--load-remote-images",
    ])
    .unwrap();
    let limits = Limits {
        header_timeout: Duration::from_secs(5),
        body_timeout: Duration::from_secs(7),
        idle_timeout: Duration::from_secs(9),
        max_connections: 100,
    };
    assert_eq!(c.connections, limits);
    assert_eq!(c.otlp.keeping.max_bytes, 20 << 20);
    assert_eq!(c.otlp.keeping.keep_for, Duration::from_secs(2 * 86_400));
    assert_eq!(
        c.access.trusted_proxies,
        ["10.0.0.1".parse::<std::net::IpAddr>().unwrap()]
    );
    assert!(c.policy.remote_images);
}

#[test]
fn dist_overrides_the_built_in_app_and_no_dist_serves_neither() {
    let c = parse(&["--dist", "elsewhere"]).unwrap();
    assert_eq!(
        (c.dist, c.embedded),
        (Some(PathBuf::from("elsewhere")), None)
    );
    let c = parse(&["--no-dist"]).unwrap();
    assert_eq!((c.dist, c.embedded), (None, None));
}

#[test]
fn origin_flags_repeat_into_the_policy() {
    let c = parse(&[
        "--embed-origin",
        "https://docs.example",
        "--embed-origin",
        "http://127.0.0.1:9000",
        "--connect-origin",
        "https://kandev.example",
        "--connect-origin",
        "*",
    ])
    .unwrap();
    let embed: Vec<String> = c.policy.embed.iter().map(|o| o.to_string()).collect();
    assert_eq!(embed, ["https://docs.example", "http://127.0.0.1:9000"]);
    assert_eq!(
        c.policy.connect,
        [
            ConnectOrigin::Origin("https://kandev.example".parse().unwrap()),
            ConnectOrigin::Any
        ]
    );
}

#[test]
fn precompress_takes_a_folder_defaulting_to_dist() {
    let dir = |args: &[&str]| match Cli::try_parse_from(args).unwrap().command {
        Command::Precompress { dir } => dir,
        _ => panic!("precompress expected"),
    };
    assert_eq!(dir(&["taskview", "precompress"]), PathBuf::from("dist"));
    assert_eq!(
        dir(&["taskview", "precompress", "out"]),
        PathBuf::from("out")
    );
}

#[test]
fn export_takes_an_input_and_an_output_and_documents_itself() {
    let cli = Cli::try_parse_from(["taskview", "export", "s.jsonl", "-o", "out.html"]).unwrap();
    let Command::Export(args) = cli.command else {
        panic!("export expected");
    };
    assert_eq!(args.input, PathBuf::from("s.jsonl"));
    assert_eq!(args.output, PathBuf::from("out.html"));
    assert_eq!(args.dist, PathBuf::from("dist"));
    assert!(!args.no_mask, "secrets are masked by default");
    let cli =
        Cli::try_parse_from(["taskview", "export", "s.jsonl", "-o", "o", "--no-mask"]).unwrap();
    let Command::Export(args) = cli.command else {
        panic!("export expected");
    };
    assert!(args.no_mask);
    assert!(Cli::try_parse_from(["taskview", "export", "s.jsonl"]).is_err());
    let help = Cli::try_parse_from(["taskview", "export", "--help"])
        .unwrap_err()
        .to_string();
    for words in [
        "self-contained",
        "data-export=\"1\"",
        "--output",
        "session folder",
        "--no-mask",
        "[masked: <rule id>]",
    ] {
        assert!(help.contains(words), "{words}: {help}");
    }
}

#[test]
fn bad_values_are_rejected_with_the_flag_named() {
    for args in [
        &["--addr", "nonsense"][..],
        &["--addr", "127.0.0.1"],
        &["--addr", "127.0.0.1:99999"],
        &["--speed", "0"],
        &["--speed", "fast"],
        &["--drop-ws-every", "0"],
        &["--inject-malformed-every", "0"],
        &["--scenario", "party"],
        &["--embed-origin", "example.com"],
        &["--embed-origin", "https://example.com/page"],
        &["--connect-origin", "https://a.example; script-src *"],
        &["--allow-origin", "null"],
        &["--allow-origin", "https://*.example"],
        &["--allow-host", "tv.example:8080"],
        &["--token", "has space"],
        &["--token", ""],
        &["--token", "a"],
        &["--token", "short-token"],
        &["--token", "aaaaaaaaaaaaaaaaaaaaaaaa"],
        &["--trusted-proxy", "proxy.example"],
        &["--max-connections", "0"],
        &["--otlp-max-mb", "0"],
    ] {
        let err = parse(args).unwrap_err().to_string();
        assert!(err.contains(args[0]), "{args:?}: {err}");
    }
}

#[test]
fn the_otlp_receiver_runs_with_recordings_or_when_asked_for() {
    let demo = parse(&[]).unwrap();
    assert_eq!(demo.otlp, OtlpConfig::default());
    let given = parse(&["--otlp", "127.0.0.1:4318", "--otlp-dir", "tel"]).unwrap();
    assert_eq!(given.otlp.listen, Some("127.0.0.1:4318".parse().unwrap()));
    assert_eq!(given.otlp.dir, Some(PathBuf::from("tel")));
    assert!(parse(&["--otlp", "nonsense"]).is_err());
    let home = Path::new("/home/u");
    assert_eq!(
        default_otlp_dir(Some("/data".into()), Some(home)),
        Some(PathBuf::from("/data/taskview/otlp"))
    );
    assert_eq!(
        default_otlp_dir(Some("relative".into()), Some(home)),
        Some(PathBuf::from("/home/u/.local/share/taskview/otlp"))
    );
    assert_eq!(default_otlp_dir(None, None), None);
}

#[test]
fn sources_exclude_each_other() {
    assert!(parse(&["--demo", "--recordings", "r"]).is_err());
    assert!(parse(&["--recordings", "r", "--scenario", "stream"]).is_err());
    assert!(parse(&["--no-dist", "--dist", "d"]).is_err());
}

#[test]
fn scenario_options_reach_the_config() {
    let c = parse(&[
        "--scenario",
        "stream",
        "--messages",
        "30",
        "--interval-ms",
        "2",
    ])
    .unwrap();
    let Source::Stream {
        messages, interval, ..
    } = c.source
    else {
        panic!("stream expected");
    };
    assert_eq!((messages, interval), (30, Duration::from_millis(2)));
    let c = parse(&["--scenario", "lifecycle", "--once", "--no-dist"]).unwrap();
    assert!(
        matches!(c.source, Source::Lifecycle { once: true, interval, .. } if interval == Duration::from_secs(1))
    );
    assert_eq!(c.dist, None);
    let c = parse(&[
        "--recordings",
        "recs",
        "--drop-ws-every",
        "3",
        "--inject-malformed-every",
        "5",
        "--frame-per-event",
    ])
    .unwrap();
    assert_eq!(c.inject_malformed_every, Some(5));
    assert!(c.frame_per_event);
    assert!(
        matches!(c.source, Source::Recordings { ref dirs, .. } if dirs == &[PathBuf::from("recs")])
    );
    assert_eq!(c.drop_ws_every, Some(3));
}

#[test]
fn recordings_without_a_folder_watch_the_agents_folders() {
    let home = Path::new("/home/me");
    let agents = recording_dirs(vec![PathBuf::new()], Some(home)).unwrap();
    assert_eq!(
        agents,
        [
            "/home/me/.claude/projects",
            "/home/me/.qwen/projects",
            "/home/me/.gemini/tmp",
            "/home/me/.codex/sessions",
            "/home/me/.copilot/session-state",
            "/home/me/.local/share/opencode",
            "/home/me/.kimi-code/sessions",
        ]
        .map(PathBuf::from)
    );
    let both = recording_dirs(
        vec![PathBuf::from("a"), PathBuf::new(), PathBuf::from("a")],
        Some(home),
    )
    .unwrap();
    assert_eq!(
        both.len(),
        1 + AGENT_FOLDERS.len(),
        "a named folder once, then the agents' own"
    );
    assert_eq!(recording_dirs(Vec::new(), Some(home)), None);
    let c = parse(&["--recordings"]).unwrap();
    assert!(
        matches!(c.source, Source::Recordings { ref dirs, .. } if dirs.len() == AGENT_FOLDERS.len())
    );
    let c = parse(&["--recordings", "x", "--recordings", "y"]).unwrap();
    assert!(matches!(c.source, Source::Recordings { ref dirs, .. } if dirs.len() == 2));
}

#[test]
fn a_receiver_alone_shows_its_telemetry_and_a_store_alone_the_team() {
    let alone = parse(&["--otlp", "127.0.0.1:4318", "--otlp-dir", "tel"]).unwrap();
    assert!(matches!(&alone.source, Source::Recordings { dirs, .. } if dirs.is_empty()));
    assert_eq!(alone.store, None);
    let demo = parse(&["--demo", "--otlp-dir", "tel"]).unwrap();
    assert!(
        matches!(demo.source, Source::Demo { .. }),
        "--demo asked for"
    );
    let team = parse(&["--store", "postgres://u:pw@db/team"]).unwrap();
    assert_eq!(team.source, Source::Team);
    let store = team.store.unwrap();
    assert!(!store.writes, "nothing of this machine to write");
    assert_eq!(store.content, Content::Full);
    assert!(!store.unmasked);
    assert!(!store.machine.is_empty() && !store.person.is_empty());
}

#[test]
fn store_flags_reach_the_config_and_the_password_stays_hidden() {
    let c = parse(&[
        "--recordings",
        "r",
        "--store",
        "postgres://u:hunter22@db/team",
        "--machine",
        "ana-laptop",
        "--person",
        "ana",
        "--store-content",
        "cards",
        "--store-unmasked",
    ])
    .unwrap();
    let store = c.store.unwrap();
    assert!(store.writes);
    assert_eq!(
        (store.machine.as_str(), store.person.as_str()),
        ("ana-laptop", "ana")
    );
    assert_eq!((store.content, store.unmasked), (Content::Cards, true));
    assert!(!format!("{store:?}").contains("hunter22"));
    assert!(parse(&["--store", "postgres://db/t", "--demo"]).is_err());
    assert!(parse(&["--store", "postgres://db/t", "--scenario", "stream"]).is_err());
    assert!(
        parse(&["--machine", "m"]).is_err(),
        "--machine needs --store"
    );
    assert!(parse(&["--store", "postgres://db/t", "--store-content", "all"]).is_err());
    let odd = parse(&["--store", "postgres://u:hunter22@db:port/t"]).unwrap();
    let refused = odd.store.unwrap().url.check().unwrap_err();
    assert!(
        !refused.contains("hunter22"),
        "checked at start, masked: {refused}"
    );
}
