//! Errors that lead on: each mistake says what to do next, from the real `paddock` binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use paddock_tests::cli_env::CliEnv;

#[test]
fn mistakes_say_what_to_do_next() {
    let env = CliEnv::new();
    let said = env.fail(&["project", "rm", "nosuch"]);
    assert!(said.contains("`paddock project ls` lists them"), "{said}");

    let file = env.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let said = env.fail(&["project", "add", "x", "--path", file.to_str().unwrap()]);
    assert!(
        said.contains("is a file, not a folder") && !said.contains("os error"),
        "{said}"
    );

    let said = env.fail(&["ls", "--bogus"]);
    assert!(said.contains("see `paddock ls --help`"), "{said}");
    let said = env.fail(&["project", "add", "--bogus"]);
    assert!(said.contains("see `paddock project add --help`"), "{said}");

    env.run(&["project", "add", "web"]);
    env.run(&["project", "add", "secret"]);
    env.run(&[
        "trigger", "add", "nightly", "-p", "secret", "--every", "1h", "--prompt", "hi",
    ]);
    let said = env.fail(&["trigger", "rm", "nightly", "-p", "web"]);
    assert!(
        said.contains("project secret (-p secret) has one"),
        "{said}"
    );
}

/// A claude that cannot start is a failure said once, not "claude stopped" twice, and not a
/// turn to continue.
#[test]
fn a_claude_that_cannot_start_is_said_once() {
    let env = CliEnv::new();
    let out = env
        .paddock()
        .env("PADDOCK_CLAUDE_BIN", "/nonexistent/claude")
        .args(["send", "hello"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.matches("cannot start /nonexistent/claude").count(),
        1,
        "{stderr}"
    );
    assert!(
        !stderr.contains("claude stopped") && !stderr.contains("paddock continue"),
        "{stderr}"
    );
}
