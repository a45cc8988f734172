//! Futhark's escapes in string and character literals, which program text
//! (the lexer) and value text (the value reader) share.

/// The characters a string or character literal's body (without its
/// quotes) stands for, with the escapes of Futhark (Haskell's): `\n`,
/// `\t`, `\\`, `\'`, `\"`, `\xHH`, `\uHHHH`, `\UHHHHHHHH`, decimal `\65`.
pub fn unescape(body: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut cs = body.chars().peekable();
    while let Some(c) = cs.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = cs.next() else {
            return Err("a backslash must be followed by an escape".into());
        };
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '0' if !cs.peek().is_some_and(char::is_ascii_digit) => Some('\0'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' => Some(e),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            continue;
        }
        let (radix, digits) = match e {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            d if d.is_ascii_digit() => (10, 0),
            _ => return Err(format!("unknown escape `\\{e}`")),
        };
        let mut text = String::new();
        if radix == 10 {
            text.push(e);
        }
        while text.len() < if digits == 0 { 7 } else { digits } {
            match cs.peek() {
                Some(d) if d.is_digit(radix) => text.push(cs.next().expect("peeked")),
                _ => break,
            }
        }
        let code = u32::from_str_radix(&text, radix)
            .ok()
            .filter(|_| digits == 0 || text.len() == digits)
            .and_then(char::from_u32)
            .ok_or_else(|| {
                format!(
                    "invalid escape `\\{e}{}`",
                    if radix == 10 { &text[1..] } else { &text }
                )
            })?;
        out.push(code);
    }
    Ok(out)
}
