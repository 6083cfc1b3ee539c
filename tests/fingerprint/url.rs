//! R10.4: the ten `BaseURL` rules, each with valid and invalid examples (spec text and own).

use super::support::*;

fn url_ok(url: &str) -> bool {
    let mut model = worked_example().model;
    model.base_url = url.into();
    model.is_valid()
}

fn check_urls(rule: &str, valid: &[&str], invalid: &[&str]) {
    let mut wrong = Vec::new();
    for url in valid {
        if !url_ok(url) {
            wrong.push(format!("rule {rule}: {url:?} should be valid"));
        }
    }
    for url in invalid {
        if url_ok(url) {
            wrong.push(format!("rule {rule}: {url:?} should be invalid"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn url_rule_1_fragment_escapes() {
    check_urls(
        "1",
        &[
            "https://example.com/#frag",
            "https://example.com#%41%2f",
            "https://example.com/#a%20b",
            "https://example.com/#a\tb",
            "https://example.com/#",
            "https://example.com/#a#b",
        ],
        &[
            "https://example.com/#%zz",
            "https://example.com/#%4",
            "https://example.com#100%",
            "https://example.com/#%%41",
        ],
    );
}

#[test]
fn url_rule_2_no_control_bytes() {
    check_urls(
        "2",
        &["https://example.com/a\u{80}b", "https://example.com/\u{e9}"],
        &[
            "https://exa\tmple.com",
            "https://example.com/pa\u{7f}th",
            "https://example.com/?q=\n",
            "https://example.com\u{0}",
            "\u{1f}https://example.com",
            "https://example.com/\r",
        ],
    );
}

#[test]
fn url_rule_3_scheme() {
    check_urls(
        "3",
        &["https://example.com", "HTTPS://example.com", "HtTpS://example.com", "http://localhost"],
        &[
            "ftp://example.com",
            "ws://localhost",
            "example.com",
            "//example.com",
            "://example.com",
            "1http://localhost",
            "https//example.com",
            "h ttps://example.com",
            "https+x://example.com",
            "httpss://example.com",
            "/path",
        ],
    );
}

#[test]
fn url_rule_4_authority_form() {
    check_urls(
        "4",
        &[
            "https://example.com",
            "https://example.com/",
            "https://example.com?x",
            "https://example.com?q=%zz",
            "https://example.com?a@b/c",
            "https://example.com/v1?q=1",
        ],
        &["https:example.com", "https:/example.com", "https:", "http:localhost", "https:?//example.com"],
    );
}

#[test]
fn url_rule_5_no_userinfo() {
    check_urls(
        "5",
        &["https://example.com/@path", "https://example.com?user@x", "https://example.com#u@x"],
        &["https://user@example.com", "https://@example.com", "https://user:pass@example.com", "http://a@localhost"],
    );
}

#[test]
fn url_rule_6_host_and_port() {
    check_urls(
        "6",
        &[
            "https://example.com:443",
            "https://example.com:",
            "https://example.com:0008443",
            "https://[::1]",
            "https://[::1]:8443",
            "https://[::1]:",
            "https://[fe80::1%25en0]",
            "https://[fe80::1%25en0]:80",
            "https://[fe80::1%25%65n0]",
            "https://[fe80::1%25%20]",
            "https://[fe80::1%25%25]",
            "https://[fe80::1%25\u{e9}]",
        ],
        &[
            "https://example.com:443:443",
            "http://::1:80",
            "https://::1",
            "https://example.com:abc",
            "https://example.com:44 3",
            "https://example.com:-1",
            "https://[::1",
            "https://[::1]x",
            "https://[::1]:x",
            "https://[::1]::80",
            "https://a[::1]",
            "https://example[.com",
            "https://[::1][",
            "https://[::1]]",
            "https://[]",
            "https://[127.0.0.1]",
            "https://[localhost]",
            "https://[fe80::1%25]",
            "https://[fe80::1%en0]",
            "https://[fe80::1%25%00]",
            "https://[fe80::1%25%7b]",
            "https://[fe80::1%25%80]",
            "https://[fe80::1%25%zz]",
            "https://[fe80::1%25a b]",
            "https://[fe80::1%25a|b]",
            "https://[%31::1]",
        ],
    );
}

#[test]
fn url_rule_6a_ipv6_text() {
    let valid = [
        "::",
        "::1",
        "1::",
        "1::2",
        "1:2:3:4:5:6:7:8",
        "FFFF:ffff:0:0:0:0:0:1",
        "1:2:3:4:5:6::",
        "::2:3:4:5:6:7:8",
        "1:2:3:4:5:6:1.2.3.4",
        "::1.2.3.4",
        "::ffff:127.0.0.1",
        "1::2:255.255.255.255",
        "1:2:3:4:5::0.0.0.0",
        "0001:02:003:4:5:6:7:8",
    ];
    let invalid = [
        "1:2:3:4:5:6:7",
        "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7:8::",
        "1:2:3:4::5:6:7:8",
        "1::2::3",
        ":::",
        ":1::",
        "1:",
        ":1",
        "12345::",
        "g::1",
        "1.2.3.4",
        "1.2.3.4::",
        "::1.2.3",
        "::1.2.3.4.5",
        "::1.2.3.04",
        "::256.1.1.1",
        "::1.2.3.4:1",
        "1:2:3:4:5:1.2.3.4",
        "1:2:3:4:5:6:7:1.2.3.4",
        "1:2:3:4:5:6::1.2.3.4",
        "::ffff:1a.2.3.4",
        " ::1",
    ];
    let v: Vec<String> = valid.iter().map(|a| format!("https://[{a}]:1")).collect();
    let i: Vec<String> = invalid.iter().map(|a| format!("https://[{a}]:1")).collect();
    check_urls(
        "6a",
        &v.iter().map(String::as_str).collect::<Vec<_>>(),
        &i.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

#[test]
fn url_rule_7_host_characters_and_escapes() {
    check_urls(
        "7",
        &[
            "https://%C3%A9.example",
            "https://a%25b",
            "https://m\u{fc}nchen.de",
            "https://a!$&'()*+,;=b.example",
            "https://a<b>\"c",
            "https://a_b~c-d.e",
            "https://a]b",
            "https://%ff",
        ],
        &[
            "https://exa mple.com",
            "https://ex{ample.com",
            "https://ex}ample.com",
            "https://a|b",
            "https://a\\b",
            "https://a^b",
            "https://a`b",
            "https://%41.example",
            "https://%7f",
            "https://a%2",
            "https://a%zz",
            "https://a%",
        ],
    );
}

#[test]
fn url_rule_8_authority_not_empty() {
    check_urls(
        "8",
        &["https://:443", "https://:", "https://a"],
        &["https://", "https:///path", "https://?q", "https://#f", "https:///"],
    );
}

#[test]
fn url_rule_9_path_escapes() {
    check_urls(
        "9",
        &[
            "https://example.com/%41%2f",
            "https://example.com/a b",
            "https://example.com/v1/",
            "https://example.com/[x]",
        ],
        &["https://example.com/%zz", "https://example.com/a%2", "https://example.com/%", "https://example.com/a/%g0/b"],
    );
}

#[test]
fn url_rule_10_plain_http_only_to_loopback() {
    check_urls(
        "10",
        &[
            "http://localhost",
            "http://localhost:1234",
            "http://LOCALHOST:1",
            "HTTP://LOCALHOST:1",
            "http://LocalHost/v1",
            "http://127.0.0.1",
            "http://127.0.0.1:8080/v1",
            "http://[::1]",
            "http://[::1]:1234",
            "http://localhost:",
            "https://10.0.0.1",
            "https://example.com",
        ],
        &[
            "http://127.0.0.2",
            "http://localhost./",
            "http://example.com",
            "http://[::2]",
            "http://[0:0:0:0:0:0:0:1]",
            "http://127.1",
            "http://localhost.localdomain",
            "http://[::1%25lo]",
            "http://[::ffff:127.0.0.1]",
            "http://0.0.0.0",
        ],
    );
}
