//! The access layer's rules, one by one (the server's own tests are in server/tests/access.rs).

use super::guard::Guard;
use super::names::{HostName, PageOrigin};
use super::token::{bearer, cookies, take_token, Cookie, Token};
use super::*;
use axum::http::{header, HeaderMap, HeaderValue};

fn authority(text: &str) -> Option<(HostName, Option<u16>)> {
    HostName::of_authority(text)
}

#[test]
fn loopback_names_are_localhost_its_subdomains_127_slash_8_and_ipv6_one() {
    for host in [
        "localhost",
        "LOCALHOST:80",
        "localhost.:8080",
        "app.localhost:3000",
        "127.0.0.1",
        "127.8.9.10:1",
        "[::1]:8080",
        "[::ffff:127.0.0.1]",
    ] {
        let (name, _) = authority(host).unwrap_or_else(|| panic!("{host}"));
        assert!(name.is_loopback(), "{host}");
    }
    for host in [
        "evil.example",
        "localhost.evil.example",
        "evillocalhost",
        "128.0.0.1",
        "0.0.0.0",
        "[::]",
        "10.0.0.1:8080",
    ] {
        let (name, _) = authority(host).unwrap_or_else(|| panic!("{host}"));
        assert!(!name.is_loopback(), "{host}");
    }
}

#[test]
fn malformed_authorities_name_no_host() {
    for bad in [
        "",
        "a b",
        "evil.example:80:80",
        "evil.example:port",
        "evil.example:+80",
        "evil.example:99999",
        "[::1",
        "[::1]x",
        "[nonsense]",
        "user@host",
        "a..b",
    ] {
        assert_eq!(authority(bad), None, "{bad}");
    }
    assert_eq!(
        authority("Tv.Example:8080"),
        Some((HostName::Name("tv.example".into()), Some(8080)))
    );
}

#[test]
fn an_origin_has_its_default_port_made_explicit_and_matches_exactly() {
    let a: PageOrigin = "https://kandev.example".parse().unwrap();
    let b: PageOrigin = "https://KANDEV.example:443/".parse().unwrap();
    assert_eq!(a, b);
    assert_eq!(b.to_string(), "https://kandev.example");
    assert_ne!(a, "http://kandev.example".parse().unwrap());
    assert_ne!(a, "https://kandev.example:8443".parse().unwrap());
    for bad in [
        "null",
        "kandev.example",
        "https://kandev.example/path",
        "https://*.example",
        "https://kandev.example:*",
        "file://",
        "https://user@kandev.example",
    ] {
        assert!(bad.parse::<PageOrigin>().is_err(), "{bad}");
    }
}

#[test]
fn an_allowed_host_is_a_name_or_address_without_a_port() {
    assert_eq!(
        "TV.example".parse::<HostName>(),
        Ok(HostName::Name("tv.example".into()))
    );
    assert_eq!(
        "[fd00::1]".parse::<HostName>().unwrap().to_string(),
        "[fd00::1]"
    );
    for bad in [
        "tv.example:8080",
        "tv.example:",
        "http://tv.example",
        "",
        "a b",
    ] {
        assert!(bad.parse::<HostName>().is_err(), "{bad}");
    }
}

#[test]
fn tokens_are_url_safe_long_and_varied_and_generated_ones_are_long_and_different() {
    assert!("abc-DEF_1.2~xyz-0".parse::<Token>().is_ok());
    let long_but_repetitive = "ab".repeat(20);
    for bad in [
        "",
        "a",
        "a b c d e f g h i",
        "a&b",
        "é",
        &"x".repeat(257),
        "abcdefgh12345",
        &long_but_repetitive,
    ] {
        assert!(bad.parse::<Token>().is_err(), "{bad:?}");
    }
    let refusal = "a".parse::<Token>().unwrap_err();
    assert!(
        refusal.contains("at least 16 characters with at least 8 different"),
        "{refusal}"
    );
    let (a, b) = (Token::generate(), Token::generate());
    assert_eq!(a.as_str().len(), 48);
    assert!(a.as_str().parse::<Token>().is_ok());
    assert_ne!(a, b);
    assert!(a.matches(a.as_str().as_bytes()));
    assert!(!a.matches(b.as_str().as_bytes()));
    assert!(!a.matches(&a.as_str().as_bytes()[..47]));
    assert_eq!(format!("{a:?}"), "Token(…)", "Debug never shows it");
}

#[test]
fn the_token_is_taken_out_of_the_query_and_the_rest_kept_as_sent() {
    assert_eq!(take_token(None), (None, None));
    assert_eq!(take_token(Some("token=abc")), (Some("abc".into()), None));
    assert_eq!(
        take_token(Some("api=http%3A%2F%2Fx&token=a%2Db&debug")),
        (Some("a-b".into()), Some("api=http%3A%2F%2Fx&debug".into()))
    );
    assert_eq!(take_token(Some("q=1")), (None, Some("q=1".into())));
}

#[test]
fn bearer_and_cookie_values_are_read_from_their_headers() {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::AUTHORIZATION,
        HeaderValue::from_static("bearer  t1 "),
    );
    headers.append(
        header::COOKIE,
        HeaderValue::from_static("a=1; taskview-token-80=t2"),
    );
    headers.append(
        header::COOKIE,
        HeaderValue::from_static("taskview-token-80=t3"),
    );
    assert_eq!(bearer(&headers), Some(&b"t1"[..]));
    let values: Vec<&[u8]> = cookies(&headers, "taskview-token-80").collect();
    assert_eq!(values, [&b"t2"[..], b"t3"]);
    headers.insert(
        header::AUTHORIZATION,
        HeaderValue::from_static("Basic dTpw"),
    );
    assert_eq!(bearer(&headers), None);
}

#[test]
fn the_url_names_loopback_for_every_interface_and_carries_the_token() {
    let token: Token = "s3cret-token-1234".parse().unwrap();
    assert_eq!(
        url("0.0.0.0:8080".parse().unwrap(), Some(&token)),
        "http://127.0.0.1:8080/?token=s3cret-token-1234"
    );
    assert_eq!(url("[::]:81".parse().unwrap(), None), "http://[::1]:81/");
    assert_eq!(
        url("192.168.1.5:8080".parse().unwrap(), None),
        "http://192.168.1.5:8080/"
    );
}

#[test]
fn the_address_a_request_came_in_on_is_served_and_other_addresses_are_not() {
    let lan: IpAddr = "192.168.1.5".parse().unwrap();
    let bound = Guard::new(&Access::default(), SocketAddr::new(lan, 8080));
    assert!(bound.serves(&HostName::Ip(lan), None));
    assert!(!bound.serves(&HostName::Ip("192.168.1.6".parse().unwrap()), None));
    let every = Guard::new(&Access::default(), "0.0.0.0:8080".parse().unwrap());
    let arrival = Some(SocketAddr::new(lan, 8080));
    assert!(every.serves(&HostName::Ip(lan), arrival));
    let mapped = Some("[::ffff:192.168.1.5]:8080".parse().unwrap());
    assert!(every.serves(&HostName::Ip(lan), mapped));
    assert!(!every.serves(&HostName::Ip(lan), None));
    assert!(!every.serves(&HostName::Ip("0.0.0.0".parse().unwrap()), None));
    assert!(!every.serves(&HostName::Name("my-laptop".into()), arrival));
}

#[test]
fn a_token_is_made_beyond_loopback_and_given_ones_apply_everywhere() {
    let auto = Access::default();
    assert!(Guard::new(&auto, "127.0.0.1:0".parse().unwrap())
        .token()
        .is_none());
    assert!(Guard::new(&auto, "[::1]:0".parse().unwrap())
        .token()
        .is_none());
    assert!(Guard::new(&auto, "0.0.0.0:0".parse().unwrap())
        .token()
        .is_some());
    assert!(Guard::new(&auto, "192.168.1.5:0".parse().unwrap())
        .token()
        .is_some());
    let given = Access {
        token: TokenRule::Given("s3cret-token-1234".parse().unwrap()),
        ..Access::default()
    };
    let guard = Guard::new(&given, "127.0.0.1:0".parse().unwrap());
    assert_eq!(guard.token().map(Token::as_str), Some("s3cret-token-1234"));
    let off = Access {
        token: TokenRule::Off,
        ..Access::default()
    };
    assert!(Guard::new(&off, "0.0.0.0:0".parse().unwrap())
        .token()
        .is_none());
}

#[test]
fn the_cookie_is_a_digest_of_token_and_port_and_secure_only_over_https() {
    let token: Token = "s3cret-token-1234".parse().unwrap();
    let cookie = Cookie::new(&token, 8080);
    let plain = cookie.set(false);
    assert!(plain.starts_with("taskview-8080="), "{plain}");
    assert!(
        plain.ends_with("; Path=/; HttpOnly; SameSite=Strict"),
        "{plain}"
    );
    assert!(!plain.contains(token.as_str()));
    let secure = cookie.set(true);
    assert!(secure.starts_with("__Host-taskview-8080="), "{secure}");
    assert!(
        secure.ends_with("; Path=/; HttpOnly; SameSite=Strict; Secure"),
        "{secure}"
    );
    let value = |set: &str| set.split(';').next().unwrap().to_string();
    let other_port = Cookie::new(&token, 8081).set(false);
    assert_ne!(
        value(&plain)[14..],
        value(&other_port)[14..],
        "another port, another value"
    );
    let mut headers = HeaderMap::new();
    assert_eq!(cookie.carried(&headers), None);
    headers.insert(
        header::COOKIE,
        HeaderValue::from_str(&value(&secure)).unwrap(),
    );
    assert_eq!(cookie.carried(&headers), Some(true));
    headers.insert(
        header::COOKIE,
        HeaderValue::from_str(&value(&other_port).replace("8081", "8080")).unwrap(),
    );
    assert_eq!(cookie.carried(&headers), Some(false));
}

#[test]
fn the_token_is_hidden_in_what_the_log_shows_of_a_uri() {
    for (uri, shown) in [
        ("/ws?token=abc123", "/ws?token=…"),
        (
            "/v1/traces?x=1&token=abc123&TOKEN=def",
            "/v1/traces?x=1&token=…&token=…",
        ),
        ("/api/v1/workflows", "/api/v1/workflows"),
        ("http://h:1/a?token=abc", "http://h:1/a?token=…"),
    ] {
        assert_eq!(redacted(&uri.parse().unwrap()), shown, "{uri}");
    }
}

#[test]
fn other_loopback_ports_and_localhost_subdomains_are_other_origins() {
    let guard = Guard::new(&Access::default(), "127.0.0.1:8080".parse().unwrap());
    let host = Some((HostName::Ip("127.0.0.1".parse().unwrap()), Some(8080)));
    let origin =
        |text: &str| guard.origin(&HeaderValue::from_str(text).unwrap(), host.as_ref(), None);
    for own in [
        "http://127.0.0.1:8080",
        "http://localhost:8080",
        "http://app.localhost:8080",
    ] {
        assert!(origin(own).is_ok(), "{own}");
    }
    for other in [
        "http://localhost:3000",
        "http://evil.localhost:5173",
        "http://127.0.0.1:9",
        "null",
    ] {
        let refusal = origin(other)
            .err()
            .unwrap_or_else(|| panic!("{other} allowed"));
        if other != "null" {
            assert!(
                refusal.reason.contains(&format!("--allow-origin {other}")),
                "{}",
                refusal.reason
            );
            assert!(refusal
                .log
                .unwrap()
                .contains(&format!("--allow-origin {other}")));
        }
    }
    assert!(
        origin("http://localhost:3000").unwrap_err().log.is_none(),
        "logged once a minute"
    );
}

#[test]
fn a_trusted_proxy_says_https_and_who_the_client_is_and_no_one_else_does() {
    let access = Access {
        trusted_proxies: vec!["10.0.0.1".parse().unwrap()],
        ..Access::default()
    };
    let guard = Guard::new(&access, "0.0.0.0:8080".parse().unwrap());
    let mut headers = HeaderMap::new();
    headers.insert("x-forwarded-proto", HeaderValue::from_static("https"));
    headers.insert(
        "x-forwarded-for",
        HeaderValue::from_static("203.0.113.9, 198.51.100.7"),
    );
    let proxy = Some("10.0.0.1:5000".parse().unwrap());
    let stranger = Some("10.0.0.2:5000".parse().unwrap());
    assert!(guard.over_https(&headers, proxy));
    assert!(!guard.over_https(&headers, stranger));
    assert_eq!(
        guard.client(&headers, proxy),
        Some("198.51.100.7".parse().unwrap())
    );
    assert_eq!(
        guard.client(&headers, stranger),
        Some("10.0.0.2".parse().unwrap())
    );
    headers.insert("x-forwarded-proto", HeaderValue::from_static("http"));
    assert!(!guard.over_https(&headers, proxy));
}
