//! The access layer's rules, one by one (the server's own tests are in server/tests/access.rs).

use super::*;

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
fn tokens_are_url_safe_and_generated_ones_are_long_and_different() {
    assert!("abc-DEF_1.2~".parse::<Token>().is_ok());
    for bad in ["", "a b", "a&b", "a;b", "é", &"x".repeat(257)] {
        assert!(bad.parse::<Token>().is_err(), "{bad:?}");
    }
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
    let token: Token = "s3cret".parse().unwrap();
    assert_eq!(
        url("0.0.0.0:8080".parse().unwrap(), Some(&token)),
        "http://127.0.0.1:8080/?token=s3cret"
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
        token: TokenRule::Given("t".parse().unwrap()),
        ..Access::default()
    };
    let guard = Guard::new(&given, "127.0.0.1:0".parse().unwrap());
    assert_eq!(guard.token().map(Token::as_str), Some("t"));
    let off = Access {
        token: TokenRule::Off,
        ..Access::default()
    };
    assert!(Guard::new(&off, "0.0.0.0:0".parse().unwrap())
        .token()
        .is_none());
}
