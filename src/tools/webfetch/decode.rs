//! A fetched body made text: `Content-Encoding` undone while it is read (gzip and deflate by
//! `flate2`, brotli by `brotli-decompressor`; the size cap applies to the decompressed bytes,
//! so a small bomb stops at the cap), and the bytes decoded by `encoding_rs` from the
//! charset a browser would use: a byte order mark, the `Content-Type` charset, a
//! `<meta charset>` near the start of an HTML page, else UTF-8 when the bytes are UTF-8 and
//! windows-1252 when not.
use encoding_rs::Encoding;
use std::io::Read;

/// The codings WebFetch asks for (it can undo each).
pub const ACCEPT_ENCODING: &str = "gzip, deflate, br";

/// The response's body as a reader of its decoded bytes.
pub fn body_reader(resp: ureq::Response) -> Result<Box<dyn Read + Send>, String> {
    let codings: Vec<String> = resp
        .header("content-encoding")
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    let mut r: Box<dyn Read + Send> = Box::new(resp.into_reader());
    // Codings are listed in the order they were applied: undo the last first.
    for c in codings.iter().rev() {
        r = match c.as_str() {
            "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(r)),
            "deflate" => Box::new(flate2::read::ZlibDecoder::new(r)),
            "br" => Box::new(brotli_decompressor::Decompressor::new(r, 8192)),
            other => {
                return Err(format!(
                    "the server sent an unsupported Content-Encoding {other:?}"
                ))
            }
        };
    }
    Ok(r)
}

/// The `charset` parameter of a `Content-Type` value, lower case ("" when there is none).
pub fn charset_param(content_type: &str) -> String {
    content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, v)| v.trim().trim_matches(['"', '\'']).to_ascii_lowercase())
        .unwrap_or_default()
}

/// The body as text (see the module comment for how its encoding is chosen).
pub fn to_text<'a>(body: &'a [u8], charset: &str, html: bool) -> std::borrow::Cow<'a, str> {
    let declared = Encoding::for_label(charset.as_bytes())
        .or_else(|| html.then(|| meta_charset(body)).flatten());
    let enc = match declared {
        Some(e) => e,
        None if std::str::from_utf8(body).is_ok() => encoding_rs::UTF_8,
        None => encoding_rs::WINDOWS_1252,
    };
    // `decode` looks for a byte order mark first, which wins over any label (as in browsers);
    // a UTF-16 label without one is read as UTF-8 there, as the standard says for HTML.
    let enc = if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        if Encoding::for_bom(body).is_some() || !html {
            enc
        } else {
            encoding_rs::UTF_8
        }
    } else {
        enc
    };
    enc.decode(body).0
}

/// The encoding a `<meta charset=...>` or `<meta http-equiv=Content-Type content="...;
/// charset=...">` in the first 1024 bytes names (the standard's pre-scan, simplified).
fn meta_charset(body: &[u8]) -> Option<&'static Encoding> {
    let head = &body[..body.len().min(1024)];
    let lower: Vec<u8> = head.to_ascii_lowercase();
    let mut at = 0;
    while let Some(k) = memchr::memmem::find(&lower[at..], b"<meta") {
        let start = at + k + 5;
        let end = memchr::memchr(b'>', &lower[start..]).map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(c) = memchr::memmem::find(tag, b"charset") {
            let rest = &tag[c + 7..];
            let rest = rest.trim_ascii_start();
            if let Some(v) = rest.strip_prefix(b"=") {
                let v = v.trim_ascii_start();
                let v = v
                    .strip_prefix(b"\"")
                    .or_else(|| v.strip_prefix(b"'"))
                    .unwrap_or(v);
                let len = v
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || b"-_:.".contains(b))
                    .count();
                if let Some(e) = Encoding::for_label(&v[..len]) {
                    return Some(e);
                }
            }
        }
        at = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets_from_header_meta_bom_or_guess() {
        assert_eq!(
            charset_param("text/html; Charset=\"Shift_JIS\""),
            "shift_jis"
        );
        assert_eq!(charset_param("text/html"), "");
        // windows-1252 from the header, Shift_JIS from a <meta>.
        assert_eq!(
            to_text(b"caf\xe9 \x93q\x94", "windows-1252", true),
            "café “q”"
        );
        let sjis = b"<meta charset=\"Shift_JIS\"><p>\x93\xfa\x96\x7b\x8c\xea</p>";
        assert!(to_text(sjis, "", true).contains("日本語"));
        let equiv =
            b"<META http-equiv=Content-Type content='text/html; charset=shift_jis'>\x93\xfa";
        assert!(to_text(equiv, "", true).ends_with('日'));
        // No label: UTF-8 when the bytes are, windows-1252 when not; a BOM wins.
        assert_eq!(to_text("naïve".as_bytes(), "", true), "naïve");
        assert_eq!(to_text(b"na\xefve", "", false), "naïve");
        assert_eq!(to_text(b"\xef\xbb\xbfok", "windows-1252", true), "ok");
    }
}
