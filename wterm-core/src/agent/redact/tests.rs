//! Redaction, each kind with a fake of its documented shape. The fakes are built at run time
//! from repeated filler, so no token-shaped string sits in the source for secret scanners.

use super::*;
use proptest::prelude::*;

/// `n` bytes cycling over `alphabet`.
fn fill(alphabet: &str, n: usize) -> String {
    alphabet.chars().cycle().take(n).collect()
}

/// `n` fake [A-Za-z0-9] bytes.
fn alnum(n: usize) -> String {
    fill("F4keT0ken", n)
}

/// `n` fake [A-Z0-9] bytes.
fn upper(n: usize) -> String {
    fill("FAKE0KEY9", n)
}

fn aws_id() -> String {
    format!("AKIA{}", upper(16))
}

fn ghp() -> String {
    format!("ghp_{}", alnum(36))
}

fn jwt_fake() -> String {
    format!(
        "eyJ{}.eyJ{}.{}",
        fill("hbGc", 17),
        fill("zdWI", 30),
        fill("Sig_-9", 43)
    )
}

fn red(s: &str) -> (String, Report) {
    let r = Redactor::new().text(s);
    (r.text.into_owned(), r.report)
}

fn one(kind: &'static str) -> Report {
    Report {
        count: 1,
        kinds: vec![kind],
    }
}

#[track_caller]
fn redacts(input: &str, want: &str, kind: &'static str) {
    let (got, report) = red(input);
    assert_eq!(got, want, "input {input:?}");
    assert_eq!(report, one(kind), "input {input:?}");
}

#[track_caller]
fn keeps(input: &str) {
    let r = Redactor::new().text(input);
    assert!(
        matches!(r.text, Cow::Borrowed(_)),
        "input {input:?} became {:?}",
        r.text
    );
    assert_eq!(r.report, Report::default());
}

fn row(text: &str, wrapped: bool) -> TextRow {
    TextRow {
        text: text.to_owned(),
        wrapped,
    }
}

fn texts(rows: &[TextRow]) -> Vec<&str> {
    rows.iter().map(|r| r.text.as_str()).collect()
}

#[test]
fn private_key_blocks_of_every_label() {
    for label in [
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "DSA PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ] {
        let block = format!(
            "-----BEGIN {label}-----\n{}\n{}==\n-----END {label}-----",
            fill("MIIfake+/", 64),
            fill("abc", 20)
        );
        redacts(
            &format!("$ cat key\n{block}\n$ "),
            "$ cat key\n[redacted:private_key]\n$ ",
            PRIVATE_KEY,
        );
    }
}

#[test]
fn a_private_key_cut_before_its_end_line_is_redacted_to_the_end() {
    let text = format!(
        "before\n-----BEGIN EC PRIVATE KEY-----\n{}\n{}",
        fill("MHcfake", 64),
        fill("AoGB", 30)
    );
    redacts(&text, "before\n[redacted:private_key]", PRIVATE_KEY);
    // An END line cut inside its label still ends the block there.
    redacts(
        "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIV",
        "[redacted:private_key]",
        PRIVATE_KEY,
    );
}

#[test]
fn pem_blocks_that_are_not_private_keys_are_kept() {
    keeps("-----BEGIN CERTIFICATE-----\nMIIfake\n-----END CERTIFICATE-----");
    keeps("-----BEGIN PUBLIC KEY-----\nMIIfake\n-----END PUBLIC KEY-----");
    keeps("-----BEGIN RSA PRIVATE KEY\nno closing dashes on the BEGIN line");
    keeps("BEGIN RSA PRIVATE KEY----- without the leading dashes");
    keeps("-------------------------------------------");
}

#[test]
fn aws_access_key_ids() {
    for prefix in ["AKIA", "ASIA", "ABIA", "ACCA"] {
        let id = format!("{prefix}{}", upper(16));
        redacts(
            &format!("id {id} ok"),
            "id [redacted:aws_access_key] ok",
            AWS_ACCESS_KEY,
        );
        redacts(
            &format!("\"{id}\","),
            "\"[redacted:aws_access_key]\",",
            AWS_ACCESS_KEY,
        );
    }
    redacts(&aws_id(), "[redacted:aws_access_key]", AWS_ACCESS_KEY);
}

#[test]
fn aws_access_key_near_misses() {
    keeps(&format!("AKIA{}", upper(15)));
    keeps(&format!("AKIA{}", upper(17)));
    keeps(&format!("XAKIA{}", upper(16)));
    keeps(&format!("AKIA{}x", upper(16)));
    keeps(&format!("AKIA{}_", upper(16)));
    keeps(&format!("_AKIA{}", upper(16)));
    keeps(&format!("AKIA{}", fill("fake0key9", 16)));
    keeps(&format!("AKIB{}", upper(16)));
}

#[test]
fn aws_secret_access_keys() {
    let secret = fill("wFake/Key+0", 40);
    for line in [
        format!("aws_secret_access_key = {secret}"),
        format!("AWS_SECRET_ACCESS_KEY={secret}"),
        format!("export AWS_SECRET_ACCESS_KEY=\"{secret}\""),
        format!("  \"aws_secret_access_key\": \"{secret}\","),
        format!("Aws_Secret_Access_Key: '{secret}'"),
    ] {
        let want = line.replace(&secret, "[redacted:aws_secret_key]");
        redacts(&line, &want, AWS_SECRET_KEY);
    }
    // Another length is still a secret assignment.
    let short = fill("wFake/Key+0", 39);
    redacts(
        &format!("aws_secret_access_key={short}"),
        "aws_secret_access_key=[redacted:secret_assignment]",
        SECRET_ASSIGNMENT,
    );
}

#[test]
fn github_tokens() {
    for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
        redacts(
            &format!("token {prefix}{} here", alnum(36)),
            "token [redacted:github_token] here",
            GITHUB_TOKEN,
        );
    }
    // A longer run is redacted whole.
    redacts(
        &format!("ghp_{}", alnum(40)),
        "[redacted:github_token]",
        GITHUB_TOKEN,
    );
    redacts(
        &format!("github_pat_{} x", fill("11FAKE0_abc", 82)),
        "[redacted:github_token] x",
        GITHUB_TOKEN,
    );
}

#[test]
fn github_token_near_misses() {
    keeps(&format!("ghp_{}", alnum(35)));
    keeps(&format!("ghx_{}", alnum(36)));
    keeps(&format!("xghp_{}", alnum(36)));
    keeps(&format!("gh_{}", alnum(36)));
    keeps(&format!("github_pat_{}", fill("11FAKE0_abc", 81)));
    keeps(&format!("my_github_pat_{}", fill("11FAKE0_abc", 82)));
}

#[test]
fn gitlab_tokens() {
    redacts(
        &format!("glpat-{} x", fill("Fake-Tok_3n", 20)),
        "[redacted:gitlab_token] x",
        GITLAB_TOKEN,
    );
    keeps(&format!("glpat-{}", fill("Fake-Tok_3n", 19)));
    keeps(&format!("glpat_{}", fill("Fake-Tok_3n", 20)));
    keeps(&format!("xglpat-{}", fill("Fake-Tok_3n", 20)));
}

#[test]
fn slack_tokens_and_webhooks() {
    for prefix in ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"] {
        redacts(
            &format!("SLACK {prefix}1234567890-{}", alnum(24)),
            "SLACK [redacted:slack_token]",
            SLACK_TOKEN,
        );
    }
    redacts("xoxb-12345-abcd", "[redacted:slack_token]", SLACK_TOKEN);
    keeps("xoxb-123456789");
    keeps("xoxq-1234567890-abcd");
    keeps("axoxb-1234567890-abcd");
    redacts(
        &format!(
            "curl https://hooks.slack.com/services/TFAKE000/BFAKE000/{} -d x",
            alnum(24)
        ),
        "curl https://hooks.slack.com/services/[redacted:slack_webhook] -d x",
        SLACK_WEBHOOK,
    );
    keeps("see https://hooks.slack.com/services/ for the docs");
    keeps("https://hooks.slack.com/services/T0");
    keeps("https://api.slack.com/services/TFAKE000/BFAKE000/abcdefgh");
}

#[test]
fn ai_api_keys() {
    redacts(
        &format!("OPENAI sk-{} end", alnum(48)),
        "OPENAI [redacted:openai_key] end",
        OPENAI_KEY,
    );
    redacts(
        &format!("sk-proj-{}", fill("Fake_T0k-en", 100)),
        "[redacted:openai_key]",
        OPENAI_KEY,
    );
    redacts(
        &format!("key sk-ant-api03-{}AA", fill("Fake_T0k-en", 90)),
        "key [redacted:anthropic_key]",
        ANTHROPIC_KEY,
    );
    redacts(
        &format!("AIza{}&q=1", fill("Fake_T0k-en", 35)),
        "[redacted:google_api_key]&q=1",
        GOOGLE_API_KEY,
    );
    for prefix in ["sk_live_", "sk_test_", "rk_live_", "rk_test_"] {
        redacts(
            &format!("{prefix}{}", alnum(24)),
            "[redacted:stripe_key]",
            STRIPE_KEY,
        );
    }
}

#[test]
fn ai_api_key_near_misses() {
    keeps(&format!("sk-{}", alnum(19)));
    keeps(&format!("disk-{}", alnum(30)));
    keeps(&format!("task-{}", fill("refactor-the-parser", 30)));
    keeps(&format!("sk-ant-{}", alnum(19)));
    keeps(&format!("AIza{}", fill("Fake_T0k-en", 34)));
    keeps(&format!("xAIza{}", fill("Fake_T0k-en", 35)));
    keeps(&format!("sk_live_{}", alnum(15)));
    keeps(&format!("pk_live_{}", alnum(24)));
    keeps(&format!("sk_prod_{}", alnum(24)));
}

#[test]
fn json_web_tokens() {
    let jwt = jwt_fake();
    redacts(
        &format!("id_token={jwt}&x",),
        "id_token=[redacted:jwt]",
        JWT,
    );
    redacts(&format!("got {jwt}."), "got [redacted:jwt].", JWT);
    // Unsigned (empty signature).
    redacts(
        &format!("eyJ{}.eyJ{}. next", fill("a", 10), fill("b", 10)),
        "[redacted:jwt] next",
        JWT,
    );
}

#[test]
fn json_web_token_near_misses() {
    keeps(&format!("eyJ{}.eyJ{}", fill("a", 10), fill("b", 10)));
    keeps(&format!("eyJ{}.abc{}.sig", fill("a", 10), fill("b", 10)));
    keeps(&format!("eyJ{}.eyJ{}.sig", fill("a", 6), fill("b", 10)));
    keeps(&format!("eyJ{}.eyJ{}.sig", fill("a", 10), fill("b", 6)));
    keeps(&format!("keyJ{}.eyJ{}.sig", fill("a", 10), fill("b", 10)));
    keeps("eyJhbGciOiJI");
}

#[test]
fn bearer_credentials_keep_the_word() {
    redacts(
        "curl -H 'Authorization: Bearer t0ken-value.abc' https://x",
        "curl -H 'Authorization: Bearer [redacted:bearer]' https://x",
        BEARER,
    );
    redacts("bearer abcd1234", "bearer [redacted:bearer]", BEARER);
    redacts("BEARER\tab/cd+ef12==", "BEARER\t[redacted:bearer]", BEARER);
    redacts(
        "Bearer abcdefghijklmnopqrstu",
        "Bearer [redacted:bearer]",
        BEARER,
    );
    // A JWT as the credential is reported as the more specific kind.
    redacts(
        &format!("Authorization: Bearer {}", jwt_fake()),
        "Authorization: Bearer [redacted:jwt]",
        JWT,
    );
}

#[test]
fn bearer_near_misses() {
    keeps("Bearer abc123");
    keeps("Bearer:abcd12345678");
    keeps("Bearerabcd12345678");
    keeps("the Bearer authentication scheme");
    keeps("--oauth2-bearer <token>");
    keeps("xbearer abcd12345678");
}

#[test]
fn secret_assignments_redact_the_value_only() {
    for (input, want) in [
        (
            "GITHUB_TOKEN=abc123",
            "GITHUB_TOKEN=[redacted:secret_assignment]",
        ),
        (
            "export NPM_TOKEN=abc123",
            "export NPM_TOKEN=[redacted:secret_assignment]",
        ),
        (
            "db_password: hunter2",
            "db_password: [redacted:secret_assignment]",
        ),
        (
            "\"api_key\": \"abc\",",
            "\"api_key\": \"[redacted:secret_assignment]\",",
        ),
        (
            "{'apiKey':'abc'}",
            "{'apiKey':'[redacted:secret_assignment]'}",
        ),
        (
            "password = 'two words'",
            "password = '[redacted:secret_assignment]'",
        ),
        (
            "--password=hunter2 -v",
            "--password=[redacted:secret_assignment] -v",
        ),
        (
            "client_secret=s3cr3t&x=1",
            "client_secret=[redacted:secret_assignment]",
        ),
        ("DB_PASSWD=pw", "DB_PASSWD=[redacted:secret_assignment]"),
        (
            "SSH_PASSPHRASE=pw",
            "SSH_PASSPHRASE=[redacted:secret_assignment]",
        ),
        (
            "GOOGLE_CREDENTIALS=abc",
            "GOOGLE_CREDENTIALS=[redacted:secret_assignment]",
        ),
        (
            "privateKey: abc",
            "privateKey: [redacted:secret_assignment]",
        ),
        (
            "signing.key = abc",
            "signing.key = [redacted:secret_assignment]",
        ),
        (
            "AWS_ACCESS_KEY_ID=abc",
            "AWS_ACCESS_KEY_ID=[redacted:secret_assignment]",
        ),
        (
            "X-Auth-Token: abc",
            "X-Auth-Token: [redacted:secret_assignment]",
        ),
        (
            "accessToken: abc",
            "accessToken: [redacted:secret_assignment]",
        ),
        (
            "OAUTH_CLIENT=abc",
            "OAUTH_CLIENT=[redacted:secret_assignment]",
        ),
        (
            "pass := \"x\" // db_password := \"pw\"",
            "pass := \"x\" // db_password := \"[redacted:secret_assignment]\"",
        ),
        (
            "Authorization: Basic dXNlcjpwYXNz",
            "Authorization: Basic [redacted:secret_assignment]",
        ),
        (
            "-H \"X-Api-Key: k3y\"",
            "-H \"X-Api-Key: [redacted:secret_assignment]\"",
        ),
        (
            "SECRET=\"esc\\\"aped\" next",
            "SECRET=\"[redacted:secret_assignment]\" next",
        ),
        (
            "TOKEN=\"unclosed to the end\nnext",
            "TOKEN=\"[redacted:secret_assignment]\nnext",
        ),
    ] {
        redacts(input, want, SECRET_ASSIGNMENT);
    }
}

#[test]
fn names_that_do_not_look_secret_are_kept() {
    for text in [
        "user=alice",
        "AUTHOR=bob",
        "GIT_AUTHOR_NAME=bob",
        "authority: example.org",
        "MAX_TOKENS=4096",
        "key: ctrl+shift+p",
        "monkey=1",
        "hockey: 2",
        "PWD=/home/alice",
        "password==other",
        "if password != other",
        "12:34:56 token:abc",
        "cat: /run/secrets/db_password: Permission denied",
        "C:\\secrets\\api_key: missing",
        "fe80::1 ::password",
    ] {
        keeps(text);
    }
}

#[test]
fn placeholders_are_kept() {
    for text in [
        "PASSWORD=",
        "PASSWORD= next",
        "password:",
        "credentials:\n  user: bob",
        "PASSWORD=***",
        "PASSWORD=********",
        "TOKEN=xxx",
        "TOKEN=XXXXXXXX",
        "TOKEN=...",
        "TOKEN=<your-token>",
        "TOKEN=${GITHUB_TOKEN}",
        "TOKEN=$GITHUB_TOKEN",
        "SECRET=$(cat /run/secrets/x)",
        "TOKEN={{.Values.token}}",
        "TOKEN=\"{{ .Values.token }}\"",
        "password: changeme",
        "\"api_key\": null,",
        "\"api_key\": \"\"",
        "auth: true",
        "secret: None",
        "\"auth\": {\"user\": 1}",
        "tokens = [1, 2]",
        "token = os.getenv(\"TOKEN\")",
        "let api_key = std::env::var(\"API_KEY\")?;",
        "GITHUB_TOKEN=[redacted:github_token]",
        "postgres://admin:***@db/app",
        "postgres://admin:<password>@db/app",
    ] {
        keeps(text);
    }
}

#[test]
fn url_passwords() {
    redacts(
        "DATABASE_URL postgres://admin:s3cret@db:5432/app",
        "DATABASE_URL postgres://admin:[redacted:url_password]@db:5432/app",
        URL_PASSWORD,
    );
    redacts(
        "git clone https://x-access-token:pw123@github.com/o/r",
        "git clone https://x-access-token:[redacted:url_password]@github.com/o/r",
        URL_PASSWORD,
    );
    keeps("https://user@example.com/x");
    keeps("https://example.com/a:b@c");
    keeps("ssh://git@host:22/repo");
}

#[test]
fn the_specific_kind_wins_over_the_assignment() {
    redacts(
        &format!("GITHUB_TOKEN={}", ghp()),
        "GITHUB_TOKEN=[redacted:github_token]",
        GITHUB_TOKEN,
    );
    redacts(
        &format!("export OPENAI_API_KEY=\"sk-proj-{}\"", alnum(40)),
        "export OPENAI_API_KEY=\"[redacted:openai_key]\"",
        OPENAI_KEY,
    );
    redacts(
        &format!("url: https://user:{}@h", ghp()),
        "url: https://user:[redacted:github_token]@h",
        GITHUB_TOKEN,
    );
    // The union is redacted: nothing of either match is left.
    redacts(
        &format!("TOKEN={}.tail", ghp()),
        "TOKEN=[redacted:github_token]",
        GITHUB_TOKEN,
    );
}

#[test]
fn two_secrets_on_a_line_and_the_report() {
    let asia = format!("ASIA{}", upper(16));
    let text = format!("A={} B {} C {} D", aws_id(), ghp(), asia);
    let (got, report) = red(&text);
    assert_eq!(
        got,
        "A=[redacted:aws_access_key] B [redacted:github_token] C [redacted:aws_access_key] D"
    );
    assert_eq!(report.count, 3);
    assert_eq!(report.kinds, [AWS_ACCESS_KEY, GITHUB_TOKEN]);
}

#[test]
fn nothing_to_redact_borrows() {
    let text = "drwxr-xr-x  2 alice staff  4096 Mar  1 12:34 src\nlevel=info msg=\"ok\" user=bob";
    let r = Redactor::new().text(text);
    match r.text {
        Cow::Borrowed(s) => assert!(std::ptr::eq(s, text)),
        Cow::Owned(_) => panic!("allocated"),
    }
    assert_eq!(r.report, Report::default());
    keeps("");
    keeps("s");
    keeps("=");
    keeps(":");
    keeps("B");
}

#[test]
fn utf8_around_secrets_is_never_split() {
    redacts(
        &format!("密钥{}🔑", aws_id()),
        "密钥[redacted:aws_access_key]🔑",
        AWS_ACCESS_KEY,
    );
    redacts(
        &format!("🔑 {} 日本語", ghp()),
        "🔑 [redacted:github_token] 日本語",
        GITHUB_TOKEN,
    );
    redacts(
        "PASSWORD=пароль🔑123 далее",
        "PASSWORD=[redacted:secret_assignment] далее",
        SECRET_ASSIGNMENT,
    );
    redacts(
        "\"token\": \"秘密の値\"}",
        "\"token\": \"[redacted:secret_assignment]\"}",
        SECRET_ASSIGNMENT,
    );
    keeps("Bearer 日本abcd1234");
    keeps("日本語のテキスト 🔑🎉 = : sk- ghp_ AKIA");
}

#[test]
fn a_secret_split_by_a_soft_wrap_is_redacted_in_rows() {
    let tok = ghp();
    let mut rows = vec![
        row(&format!("$ export GITHUB_TOKEN={}", &tok[..20]), true),
        row(&format!("{} done", &tok[20..]), false),
        row("$ ", false),
    ];
    let report = Redactor::new().rows(&mut rows);
    assert_eq!(report, one(GITHUB_TOKEN));
    assert_eq!(
        texts(&rows),
        [
            "$ export GITHUB_TOKEN=[redacted:github_token]",
            " done",
            "$ "
        ]
    );
    assert_eq!(
        rows.iter().map(|r| r.wrapped).collect::<Vec<_>>(),
        [true, false, false]
    );
}

#[test]
fn a_secret_over_several_wrapped_rows_empties_the_middle_rows() {
    let tok = format!("github_pat_{}", fill("11FAKE0_abc", 82));
    let mut rows: Vec<TextRow> = tok
        .as_bytes()
        .chunks(20)
        .map(|c| row(std::str::from_utf8(c).unwrap(), true))
        .collect();
    rows.last_mut().unwrap().wrapped = false;
    rows.push(row("next", false));
    let n = rows.len();
    let report = Redactor::new().rows(&mut rows);
    assert_eq!(report, one(GITHUB_TOKEN));
    assert_eq!(rows.len(), n);
    assert_eq!(rows[0].text, "[redacted:github_token]");
    assert!(rows[1..n - 1].iter().all(|r| r.text.is_empty()));
    assert_eq!(rows[n - 1].text, "next");
}

#[test]
fn a_hard_line_break_is_not_joined() {
    let tok = ghp();
    let mut rows = vec![row(&tok[..20], false), row(&tok[20..], false)];
    let before = rows.clone();
    assert_eq!(Redactor::new().rows(&mut rows), Report::default());
    assert_eq!(rows, before);
    // The same rows soft-wrapped are one token.
    rows[0].wrapped = true;
    assert_eq!(Redactor::new().rows(&mut rows), one(GITHUB_TOKEN));
    assert_eq!(texts(&rows), ["[redacted:github_token]", ""]);
}

#[test]
fn a_wrap_right_after_cjk_and_emoji() {
    let id = aws_id();
    let mut rows = vec![
        row(&format!("日本🔑{}", &id[..7]), true),
        row(&format!("{}語🎉", &id[7..]), false),
    ];
    assert_eq!(Redactor::new().rows(&mut rows), one(AWS_ACCESS_KEY));
    assert_eq!(texts(&rows), ["日本🔑[redacted:aws_access_key]", "語🎉"]);
}

#[test]
fn two_secrets_in_rows_and_an_empty_wrapped_row() {
    let mut rows = vec![
        row(&format!("a {} b", aws_id()), false),
        row("", true),
        row(&format!("{} c {}", ghp(), aws_id()), false),
    ];
    let report = Redactor::new().rows(&mut rows);
    assert_eq!(report.count, 3);
    assert_eq!(report.kinds, [AWS_ACCESS_KEY, GITHUB_TOKEN]);
    assert_eq!(
        texts(&rows),
        [
            "a [redacted:aws_access_key] b",
            "",
            "[redacted:github_token] c [redacted:aws_access_key]"
        ]
    );
}

#[test]
fn a_pem_block_over_many_rows() {
    let mut rows = vec![row("$ cat ~/.ssh/id_ed25519", false)];
    rows.push(row("-----BEGIN OPENSSH PRIVATE KEY-----", false));
    for k in 0..20 {
        rows.push(row(&fill(&format!("b3Blbn{k}NzaC"), 70), false));
    }
    rows.push(row("-----END OPENSSH PRIVATE KEY-----", false));
    rows.push(row("$ ", false));
    let n = rows.len();
    assert_eq!(Redactor::new().rows(&mut rows), one(PRIVATE_KEY));
    assert_eq!(rows.len(), n);
    assert_eq!(rows[0].text, "$ cat ~/.ssh/id_ed25519");
    assert_eq!(rows[1].text, "[redacted:private_key]");
    assert!(rows[2..n - 1].iter().all(|r| r.text.is_empty()));
    assert_eq!(rows[n - 1].text, "$ ");
}

#[test]
fn a_pem_block_cut_in_rows_empties_every_row_after_it() {
    let mut rows = vec![
        row("x -----BEGIN RSA PRIVATE KEY-----", false),
        row(&fill("MIIE", 64), false),
        row(&fill("pAIB", 64), false),
    ];
    assert_eq!(Redactor::new().rows(&mut rows), one(PRIVATE_KEY));
    assert_eq!(texts(&rows), ["x [redacted:private_key]", "", ""]);
}

#[test]
fn rows_without_secrets_are_untouched() {
    let mut rows = vec![row("total 8", false), row("-rw-r--r-- 1 a b 0 a.txt", true)];
    let before = rows.clone();
    assert_eq!(Redactor::new().rows(&mut rows), Report::default());
    assert_eq!(rows, before);
    assert_eq!(Redactor::new().rows(&mut []), Report::default());
}

#[test]
fn literal_tokens() {
    let relay = fill("Rel4y-T0ken_url_safe", 43);
    let r = Redactor::new()
        .with_literal(&relay, RELAY_TOKEN)
        .with_literal("page-secret-1", "page_token");
    let text = format!("wss://h/ws?t={relay} and x{relay}y, page-secret-1");
    let out = r.text(&text);
    assert_eq!(
        out.text,
        "wss://h/ws?t=[redacted:relay_token] and x[redacted:relay_token]y, [redacted:page_token]"
    );
    assert_eq!(out.report.count, 3);
    assert_eq!(out.report.kinds, [RELAY_TOKEN, "page_token"]);
    // A literal in a secret-looking assignment is reported as the literal.
    assert_eq!(
        r.text(&format!("RELAY_TOKEN={relay}")).text,
        "RELAY_TOKEN=[redacted:relay_token]"
    );
    // Overlapping occurrences are one redaction.
    let r2 = Redactor::new().with_literal("abcabcab", RELAY_TOKEN);
    assert_eq!(r2.text("abcabcabcab!").text, "[redacted:relay_token]!");
    // Touching literals are one redaction.
    let twice = format!("{relay}{relay}");
    let out = r.text(&twice);
    assert_eq!(out.text, "[redacted:relay_token]");
    assert_eq!(out.report.count, 1);
}

#[test]
fn short_repeated_and_multiline_literals_are_ignored() {
    let mut r = Redactor::new();
    assert!(!r.add_literal("1234567", RELAY_TOKEN));
    assert!(r.add_literal("12345678", RELAY_TOKEN));
    assert!(!r.add_literal("12345678", RELAY_TOKEN));
    assert!(!r.add_literal("abcd\nefgh", RELAY_TOKEN));
    assert_eq!(r.text("1234567 x").report, Report::default());
    assert_eq!(r.text("012345678").text, "0[redacted:relay_token]");
    // The literals never print.
    assert_eq!(format!("{r:?}"), "Redactor { literals: 1 }");
}

#[test]
fn redacted_text_is_redacted_again_unchanged() {
    let text = format!(
        "GITHUB_TOKEN={} {} Bearer {}\npostgres://u:pw@h \"api_key\": \"v\"\n-----BEGIN PRIVATE KEY-----\nx",
        ghp(),
        aws_id(),
        jwt_fake()
    );
    let once = Redactor::new().text(&text).text.into_owned();
    assert_eq!(Redactor::new().text(&once).report, Report::default());
}

#[test]
fn byte_sets_are_their_classes() {
    for c in 0..=255u8 {
        let word = c.is_ascii_alphanumeric() || c == b'_';
        assert_eq!(is_word(c), word, "{c:#x}");
        assert_eq!(is_b64url(c), word || c == b'-', "{c:#x}");
        assert_eq!(is_in(NAME, c), word || c == b'-' || c == b'.', "{c:#x}");
    }
}

/// Every byte is an anchor exactly when it is one of the anchor bytes, at every place of a
/// block and next to any other byte (no carry between a block's bytes).
#[test]
fn anchors_are_exact() {
    let is_anchor = |c: u8| b":;<=-_AJBb".contains(&c);
    for c in 0..=255u8 {
        for other in [0u8, b' ', b'=', b'A', 0x7f, 0x80, 0xbd, 0xff] {
            for at in 0..8 {
                let mut w = [other; 8];
                w[at] = c;
                let m = anchors(u64::from_le_bytes(w));
                assert_eq!(
                    m & (0x80 << (8 * at)) != 0,
                    is_anchor(c),
                    "{c:#x} at {at} by {other:#x}"
                );
                for (k, &o) in w.iter().enumerate().filter(|&(k, _)| k != at) {
                    assert_eq!(m & (0x80 << (8 * k)) != 0, is_anchor(o), "{o:#x} by {c:#x}");
                }
            }
        }
    }
}

#[test]
fn kinds_are_listed_once_each() {
    let names: Vec<&str> = KINDS.iter().map(|k| k.0).collect();
    for (k, n) in names.iter().enumerate() {
        assert!(!names[..k].contains(n), "{n} twice");
    }
    for kind in [
        PRIVATE_KEY,
        AWS_ACCESS_KEY,
        AWS_SECRET_KEY,
        GITHUB_TOKEN,
        GITLAB_TOKEN,
        SLACK_TOKEN,
        SLACK_WEBHOOK,
        ANTHROPIC_KEY,
        OPENAI_KEY,
        GOOGLE_API_KEY,
        STRIPE_KEY,
        JWT,
        URL_PASSWORD,
        BEARER,
        SECRET_ASSIGNMENT,
        RELAY_TOKEN,
    ] {
        assert!(names.contains(&kind), "{kind} not in KINDS");
    }
}

/// Pieces that make near-secrets when strung together at random.
const PIECES: &[&str] = &[
    "AKIA",
    "FAKE0KEY9FAKE0KE",
    "ghp_",
    "F4keT0kenF4keT0kenF4keT0kenF4keT0ken",
    "=",
    ":",
    ": ",
    " ",
    "\"",
    "'",
    "TOKEN",
    "password",
    "日本",
    "🔑",
    "eyJ",
    "abcdefghij",
    ".",
    "-----BEGIN ",
    "RSA PRIVATE KEY-----",
    "-----END ",
    "Bearer ",
    "https://",
    "@",
    "/",
    "sk-",
    "x",
    "$",
    "{",
    "(",
    "\\",
    "-",
    "_",
    "xoxb-",
    "glpat-",
    "Authorization: Basic ",
    "hooks.slack.com/services/",
];

fn pieces() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    /// A second pass leaves every marker whole (markers are placeholders, and no token runs
    /// into one). It may find more: a marker can cut a name off a token glued to it.
    #[test]
    fn markers_survive_a_second_pass(text in pieces()) {
        let r = Redactor::new().with_literal("F4keT0kenF4ke", RELAY_TOKEN);
        let once = r.text(&text);
        let again = r.text(&once.text);
        prop_assert_eq!(
            again.text.matches(MARKER_PREFIX).count(),
            once.text.matches(MARKER_PREFIX).count() + again.report.count
        );
    }

    /// Any text: no panic, and `rows` over its lines agrees with `text`.
    #[test]
    fn any_text(text in "\\PC{0,200}") {
        let r = Redactor::new();
        let once = r.text(&text);
        let mut rows: Vec<TextRow> = text.split('\n').map(|l| row(l, false)).collect();
        prop_assert_eq!(r.rows(&mut rows), once.report);
    }

    /// `rows` agrees with `text` over the joined rows, line breaks aside (`text` drops those
    /// inside a match; `rows` keeps its rows).
    #[test]
    fn rows_agree_with_text(parts in prop::collection::vec((pieces(), any::<bool>()), 0..8)) {
        let r = Redactor::new().with_literal("F4keT0kenF4ke", RELAY_TOKEN);
        let mut rows: Vec<TextRow> = parts
            .iter()
            .map(|(t, w)| row(&t.replace('\n', ""), *w))
            .collect();
        let joined = crate::join_for_search(&rows);
        let want = r.text(&joined);
        let flags: Vec<bool> = rows.iter().map(|r| r.wrapped).collect();
        let report = r.rows(&mut rows);
        prop_assert_eq!(&report, &want.report);
        prop_assert_eq!(rows.iter().map(|r| r.wrapped).collect::<Vec<_>>(), flags);
        prop_assert_eq!(
            crate::join_for_search(&rows).replace('\n', ""),
            want.text.replace('\n', "")
        );
    }
}

/// A frame read with a secret split by a soft wrap: its rows, text and both hashes are those of
/// the redacted rows, never of the raw screen (a hash could confirm a guessed secret).
#[test]
fn a_frame_is_redacted_with_its_hashes() {
    let mut t = Terminal::new(crate::Size::new(6, 20), 100);
    let token = ghp();
    t.feed(format!("x {token}\r\n$ ").as_bytes());
    let raw = t.frame(crate::View::Screen);
    assert!(crate::join_for_search(&raw.rows).contains(&token));
    let (red, report) = Redactor::new().frame(&t, &raw).expect("a secret");
    assert_eq!(report, one("github_token"));
    assert_eq!(red.rows.len(), raw.rows.len());
    assert!(!red.text.contains("ghp_"), "{}", red.text);
    assert!(
        red.text.starts_with("x [redacted:github_token]"),
        "{}",
        red.text
    );
    assert_eq!(red.content_hash, crate::ScreenHash::of(&red.text));
    assert_ne!(red.content_hash, raw.content_hash);
    assert_ne!(red.stable_hash, raw.stable_hash);
    assert_eq!(red.cursor, raw.cursor);
    // The cursor's cell is not part of the stable hash, redacted or not.
    let mut again = Terminal::new(crate::Size::new(6, 20), 100);
    again.feed(format!("x {token}\r\n$ ").as_bytes());
    again.feed(b"z\x08");
    let raw2 = again.frame(crate::View::Screen);
    let (red2, _) = Redactor::new().frame(&again, &raw2).unwrap();
    assert_ne!(red2.content_hash, red.content_hash);
    assert_eq!(red2.stable_hash, red.stable_hash);
    // Nothing to redact: no copy.
    let mut clean = Terminal::new(crate::Size::new(6, 20), 100);
    clean.feed(b"hello\r\n");
    let f = clean.frame(crate::View::Screen);
    assert!(Redactor::new().frame(&clean, &f).is_none());
}

#[test]
fn command_output_head_and_tail_are_redacted() {
    let out = CommandOutput {
        text: format!("key {}\nok", aws_id()),
        tail: format!("API_TOKEN={}", alnum(20)),
        rows_left_out: 3,
        rows: 10,
        rows_lost: 0,
        erased: false,
    };
    let (out, report) = Redactor::new().command_output(out);
    assert_eq!(out.text, "key [redacted:aws_access_key]\nok");
    assert_eq!(out.tail, "API_TOKEN=[redacted:secret_assignment]");
    assert_eq!(report.count, 2);
    assert_eq!(report.kinds, vec!["aws_access_key", "secret_assignment"]);
}
