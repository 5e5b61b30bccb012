use super::*;

fn progs(c: &str) -> Vec<String> {
    parse(c).commands.iter().map(|c| render(&c.words)).collect()
}

#[test]
fn every_simple_command_is_found() {
    assert_eq!(progs("FOO=1 rm x"), ["rm x"]);
    assert_eq!(
        progs("for f in $(rm v); do echo $f; done"),
        ["", "rm v", "echo $f"]
    );
    assert_eq!(
        progs("echo $(rm victim)"),
        ["echo $(rm victim)", "rm victim"]
    );
    assert_eq!(progs("x=`rm y`"), ["rm y", ""]);
    assert_eq!(progs("cat <<EOF | sh\n$(rm x)\nEOF"), ["sh", "rm x", "cat"]);
    assert_eq!(progs("f() { rm x; }"), ["rm x"]);
    assert_eq!(progs("[[ -f $(rm x) ]]"), ["rm x"]);
    assert_eq!(progs("echo \"a $(rm b)\""), ["echo \"a $(rm b)\"", "rm b"]);
    assert!(!parse("if; then").ok);
    assert!(parse("ls -la").ok);
    // A loop variable is an assignment (`for PATH in .` sets PATH).
    assert_eq!(
        parse("for PATH in .; do ls; done").commands[0].assigns,
        ["PATH"]
    );
}

#[test]
fn redirections_that_write() {
    let s = parse("echo a > f 2>&1");
    assert!(s.commands[0].writes);
    let s = parse("ls 2>/dev/null >&2");
    assert!(!s.commands[0].writes);
    assert!(parse("{ ls; } > out").stray_writes);
    assert!(parse("cat <<EOF > out\nhi\nEOF").commands[0].writes);
}

#[test]
fn wrappers_and_views() {
    let w = |c: &str| parse(c).commands.remove(0).words;
    let s = shape(&w("timeout 5 nice -n 3 xargs -n1 rm -f"));
    assert_eq!(render(&s.key), "rm -f");
    let s = shape(&w("sudo -u root apt install x"));
    assert!(s.privileged);
    assert_eq!(render(&s.key), "sudo apt install x");
    let s = shape(&w("git -c alias.x='!touch f' x"));
    assert_eq!(render(&s.key), "git -c 'alias.x=!touch f' x");
    assert!(s.views.iter().any(|v| render(v) == "git x"));
    let s = shape(&w("git -C sub --no-pager log -1"));
    assert_eq!(render(&s.key), "git log -1");
    assert!(shape(&w("bash -c 'rm x'")).inline_code);
    assert!(shape(&w("python3 -c 'print(1)'")).inline_code);
    assert!(!shape(&w("python3 script.py")).inline_code);
}
