use super::*;
use clap::{CommandFactory, Parser};

#[test]
fn subcommand_names_are_clap_s() {
    let cmd = Cli::command();
    let mut names: Vec<String> = Vec::new();
    for sc in cmd.get_subcommands() {
        names.push(sc.get_name().to_string());
        names.extend(sc.get_all_aliases().map(str::to_string));
    }
    let mut ours: Vec<String> = SUBCOMMAND_NAMES.iter().map(|s| s.to_string()).collect();
    names.sort();
    ours.sort();
    assert_eq!(names, ours);
}

#[test]
fn the_lean_parse_gives_the_full_parse_s_result() {
    let lines: &[&[&str]] = &[
        &["say hello"],
        &[
            "-p",
            "claude",
            "--api-key",
            "k",
            "--base-url",
            "http://x/v1",
            "hi",
        ],
        &[
            "-m",
            "haiku",
            "--max-tokens",
            "8k",
            "--allow",
            "Bash(ls:*)",
            "--deny",
            "Write",
        ],
        &["--session", "--print", "x"],
        &[
            "-r",
            "name",
            "-c",
            "--fork",
            "-v",
            "--json",
            "--list-sessions",
        ],
        &[
            "--replay",
            "--follow",
            "3",
            "--add-dir",
            "a",
            "--add-dir",
            "b",
        ],
        &[
            "--effort",
            "high",
            "--thinking",
            "disabled",
            "--output-format",
            "json",
        ],
        &["--", "--not-a-flag"],
        &[],
    ];
    for l in lines {
        assert!(!needs_full_parse(l), "{l:?}");
        let argv = std::iter::once("bash-agent").chain(l.iter().copied());
        let lean: Cli = CliNoSubcommand::try_parse_from(argv.clone())
            .unwrap()
            .into();
        let full = Cli::try_parse_from(argv).unwrap();
        assert_eq!(format!("{lean:?}"), format!("{full:?}"), "{l:?}");
    }
}

#[test]
fn subcommands_and_help_take_the_full_parse() {
    assert!(needs_full_parse(&["search", "x"]));
    assert!(needs_full_parse(&["-p", "claude", "mcp", "list"]));
    assert!(needs_full_parse(&["--help"]));
    assert!(needs_full_parse(&["-vh"]));
    assert!(!needs_full_parse(&["search for the bug"]));
}
