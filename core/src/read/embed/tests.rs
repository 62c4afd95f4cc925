use super::*;
use serde_json::json;

fn allow(listed: &str) -> AllowList {
    AllowList::new("http://127.0.0.1:8080", listed)
}

#[test]
fn versioned_messages_are_read_by_type() {
    let append = json!({"taskview": 1, "type": "append", "messages": []});
    assert_eq!(parse(&append), Inbound::Append(append.clone()));
    for (name, theme) in [
        ("light", Theme::Light),
        ("dark", Theme::Dark),
        ("auto", Theme::Auto),
    ] {
        let m = json!({"taskview": 1, "type": "theme", "theme": name});
        assert_eq!(parse(&m), Inbound::Theme(theme));
    }
    let reveal = json!({"taskview": 1, "type": "reveal", "id": "m42"});
    assert_eq!(parse(&reveal), Inbound::Reveal("m42".into()));
}

#[test]
fn the_unversioned_append_of_the_first_contract_is_still_an_append() {
    let legacy = json!({"taskview": "append", "messages": []});
    assert_eq!(parse(&legacy), Inbound::Append(legacy.clone()));
}

#[test]
fn unknown_types_versions_and_malformed_fields_are_unknown_and_others_foreign() {
    for m in [
        json!({"taskview": 1, "type": "explode"}),
        json!({"taskview": 1}),
        json!({"taskview": 2, "type": "theme", "theme": "dark"}),
        json!({"taskview": "1", "type": "theme", "theme": "dark"}),
        json!({"taskview": 1, "type": "theme", "theme": "sepia"}),
        json!({"taskview": 1, "type": "reveal", "id": ""}),
        json!({"taskview": 1, "type": "reveal", "id": 7}),
        json!({"taskview": 1, "type": "append", "messages": "x"}),
    ] {
        assert_eq!(parse(&m), Inbound::Unknown, "{m}");
    }
    for m in [
        json!({"type": "theme"}),
        json!("hello"),
        json!(null),
        json!([1]),
    ] {
        assert_eq!(parse(&m), Inbound::Foreign, "{m}");
    }
}

#[test]
fn own_origin_is_always_allowed_and_listed_origins_match_exactly_or_by_wildcard() {
    let a = allow("https://docs.example http://*.intra.example:* http://localhost:9000/");
    assert!(a.allows("http://127.0.0.1:8080"));
    assert!(a.allows("https://docs.example"));
    assert!(a.allows("HTTPS://DOCS.EXAMPLE"));
    assert!(a.allows("http://wiki.intra.example:81"));
    assert!(a.allows("http://a.b.intra.example"));
    assert!(a.allows("http://localhost:9000"));
    for refused in [
        "http://docs.example",
        "https://docs.example:8443",
        "https://evil-docs.example",
        "http://intra.example:81",
        "http://evilintra.example:81",
        "https://wiki.intra.example:81",
        "http://localhost:9001",
        "http://127.0.0.1:8081",
        "http://localhost:8080",
        "null",
        "",
    ] {
        assert!(!a.allows(refused), "{refused}");
    }
    assert!(!AllowList::new("null", "").allows("null"), "file:// pages");
}

#[test]
fn only_the_parent_or_the_page_itself_from_an_allowed_origin_is_obeyed() {
    let a = allow("http://localhost:9000");
    let theme = Inbound::Theme(Theme::Dark);
    assert_eq!(
        decide(&theme, Sender::Parent, "http://localhost:9000", &a),
        Ok(())
    );
    assert_eq!(
        decide(&theme, Sender::Itself, "http://127.0.0.1:8080", &a),
        Ok(())
    );
    assert_eq!(
        decide(&theme, Sender::Parent, "http://localhost:9001", &a),
        Err(Ignored::Origin)
    );
    assert_eq!(
        decide(&theme, Sender::Other, "http://localhost:9000", &a),
        Err(Ignored::NotParent)
    );
    assert_eq!(
        decide(
            &Inbound::Unknown,
            Sender::Parent,
            "http://localhost:9000",
            &a
        ),
        Err(Ignored::Unknown)
    );
}

#[test]
fn the_host_is_posted_to_at_its_exact_origin_only_when_allowed_never_star() {
    let a = allow("http://localhost:9000 https://*.example");
    assert_eq!(
        host_target(Some("http://localhost:9000"), &a).as_deref(),
        Some("http://localhost:9000")
    );
    assert_eq!(
        host_target(Some("https://wiki.example/"), &a).as_deref(),
        Some("https://wiki.example")
    );
    assert_eq!(host_target(Some("http://localhost:9001"), &a), None);
    assert_eq!(host_target(Some("*"), &a), None);
    assert_eq!(host_target(None, &a), None);
    assert_eq!(
        origin_of("http://localhost:9000/host.html?x=1#y"),
        Some("http://localhost:9000")
    );
    assert_eq!(origin_of("https://a.example"), Some("https://a.example"));
    assert_eq!(origin_of("nonsense"), None);
}

#[test]
fn outbound_messages_carry_the_version_and_their_fields() {
    assert_eq!(ready(), json!({"taskview": 1, "type": "ready"}));
    assert_eq!(
        resize(640.2),
        json!({"taskview": 1, "type": "resize", "height": 641.0})
    );
    assert_eq!(
        navigate("m4", "card", "http://h/task/t#msg-m4"),
        json!({"taskview": 1, "type": "navigate", "id": "m4", "kind": "card", "link": "http://h/task/t#msg-m4"})
    );
}

#[test]
fn a_resize_is_sent_only_when_the_height_moved_by_a_pixel() {
    assert!(resize_due(None, 10.0));
    assert!(!resize_due(Some(11.0), 10.2));
    assert!(resize_due(Some(11.0), 12.5));
    assert!(resize_due(Some(11.0), 9.0));
    assert!(!resize_due(Some(11.0), f64::NAN));
}

#[test]
fn deep_links_point_at_the_full_app_page_with_the_message_anchor() {
    assert_eq!(
        deep_link("http://h:1/embed/task/t1#msg-old", "m4"),
        "http://h:1/task/t1#msg-m4"
    );
    assert_eq!(
        deep_link("http://h:1/embed/view?src=/a.json", "a b"),
        "http://h:1/view?src=/a.json#msg-a%20b"
    );
    assert_eq!(deep_link("http://h:1/embed", "x"), "http://h:1/#msg-x");
    assert_eq!(
        deep_link("http://h:1/embedded/x", "x"),
        "http://h:1/embedded/x#msg-x"
    );
    assert_eq!(
        deep_link("http://h:1/view", "é"),
        "http://h:1/view#msg-%C3%A9"
    );
}
