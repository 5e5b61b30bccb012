//! Terminal cells: how many columns a character and a string take (escape sequences
//! skipped), cutting a string to a width, and the terminal's width. Shared by the printer's
//! live region, the status line and the markdown renderer.

/// The display width of `s`, escape sequences skipped.
pub fn width(s: &str) -> usize {
    let mut w = 0;
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\x1b' {
            if it.peek() == Some(&'[') {
                it.next();
                for d in it.by_ref() {
                    if ('\x40'..='\x7e').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        w += char_width(c);
    }
    w
}

/// `s` cut to at most `max` columns (escape sequences kept, colours reset when cut).
pub fn fit(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\x1b' {
            out.push(c);
            if it.peek() == Some(&'[') {
                for d in it.by_ref() {
                    out.push(d);
                    if ('\x40'..='\x7e').contains(&d) && d != '[' {
                        break;
                    }
                }
            }
            continue;
        }
        let cw = char_width(c);
        if w + cw + 1 > max {
            break;
        }
        w += cw;
        out.push(c);
    }
    out.push('…');
    out.push_str("\x1b[0m");
    out
}

/// Terminal columns of stdout (80 when unknown).
pub fn term_cols() -> usize {
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() }; // ok: plain C struct
                                                               // SAFETY: TIOCGWINSZ fills a winsize struct we own.
    let r = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) };
    if r == 0 && ws.ws_col > 0 {
        ws.ws_col as usize
    } else {
        80
    }
}

/// Terminal columns one char takes (0 for controls and combining marks, 2 for wide).
pub fn char_width(c: char) -> usize {
    let cp = c as u32;
    let wide = matches!(cp,
        0x1100..=0x115f | 0x2e80..=0xa4cf | 0xac00..=0xd7a3 | 0xf900..=0xfaff |
        0xfe30..=0xfe4f | 0xff00..=0xff60 | 0xffe0..=0xffe6 | 0x1f300..=0x1f64f |
        0x1f900..=0x1f9ff | 0x20000..=0x3fffd);
    if wide {
        2
    } else if cp < 0x20 || (0x300..0x370).contains(&cp) {
        0
    } else {
        1
    }
}
