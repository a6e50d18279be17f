//! The lexer of [`super`]: C++'s translation phases 2 and 3 (lines spliced, comments and literals
//! read as tokens) and, for phase 4, the lines a conditional leaves in. Pure.

/// One token of the source; `line` is the 1-based physical line where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub(super) kind: Kind,
    pub(super) text: String,
    pub(super) line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Ident,
    /// A number, or any character that is not part of another token.
    Other,
    Punct,
    /// A string or character literal, quotes and prefix included.
    Literal,
    /// `#` as the first token of a line: a directive starts.
    Hash,
    /// The end of a logical line (after splicing; a block comment's newlines do not end a line).
    Newline,
}

impl Token {
    pub(super) fn is_ident(&self, name: &str) -> bool {
        self.kind == Kind::Ident && self.text == name
    }

    pub(super) fn is_punct(&self, c: char) -> bool {
        self.kind == Kind::Punct && self.text.len() == 1 && self.text.starts_with(c)
    }
}

/// Phase 2: removes every backslash-newline, keeping each remaining character's physical line.
pub(super) fn splice(source: &str) -> Vec<(char, usize)> {
    let mut out = Vec::with_capacity(source.len());
    let mut line = 1;
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            // `\` then optional `\r`, then `\n`: a continuation.
            let mut ahead = chars.clone();
            if ahead.peek() == Some(&'\r') {
                ahead.next();
            }
            if ahead.peek() == Some(&'\n') {
                ahead.next();
                chars = ahead;
                line += 1;
                continue;
            }
        }
        out.push((c, line));
        if c == '\n' {
            line += 1;
        }
    }
    out
}

/// Phase 3: tokens, comments dropped (a block comment is whitespace, even across lines).
pub(super) fn tokenize(chars: &[(char, usize)]) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).map(|&(c, _)| c);
    let mut line_start = true;
    while i < chars.len() {
        let (c, line) = chars[i];
        let push = |tokens: &mut Vec<Token>, kind, text: String| tokens.push(Token { kind, text, line });
        if c == '\n' {
            push(&mut tokens, Kind::Newline, String::new());
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && at(i + 1) == Some('/') {
            while i < chars.len() && chars[i].0 != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && at(i + 1) == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i].0 == '*' && at(i + 1) == Some('/')) {
                i += 1;
            }
            i = (i + 2).min(chars.len());
            continue;
        }
        let first_on_line = std::mem::replace(&mut line_start, false);
        if c == '#' && first_on_line {
            push(&mut tokens, Kind::Hash, "#".into());
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while at(i).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().map(|&(c, _)| c).collect();
            // A string or character literal with an encoding prefix (`L"..."`, `u8'x'`, `R"(...)"`).
            let raw = word.ends_with('R') && matches!(word.as_str(), "R" | "LR" | "uR" | "UR" | "u8R");
            let prefix = matches!(word.as_str(), "L" | "u" | "U" | "u8") || raw;
            match at(i) {
                Some('"') if raw => {
                    let end = raw_string_end(chars, i);
                    push(&mut tokens, Kind::Literal, chars[start..end].iter().map(|&(c, _)| c).collect());
                    i = end;
                }
                Some(q @ ('"' | '\'')) if prefix => {
                    let end = quoted_end(chars, i, q);
                    push(&mut tokens, Kind::Literal, chars[start..end].iter().map(|&(c, _)| c).collect());
                    i = end;
                }
                _ => push(&mut tokens, Kind::Ident, word),
            }
        } else if c == '"' || c == '\'' {
            let end = quoted_end(chars, i, c);
            push(&mut tokens, Kind::Literal, chars[i..end].iter().map(|&(c, _)| c).collect());
            i = end;
        } else if c.is_ascii_digit() {
            // pp-number: digits, letters, `.`, `'` separators, and signs after an exponent.
            let start = i;
            i += 1;
            while let Some(d) = at(i) {
                let exponent_sign = matches!(d, '+' | '-') && matches!(at(i - 1), Some('e' | 'E' | 'p' | 'P'));
                if d.is_ascii_alphanumeric() || d == '_' || d == '.' || d == '\'' || exponent_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            push(&mut tokens, Kind::Other, chars[start..i].iter().map(|&(c, _)| c).collect());
        } else {
            let kind = if c.is_ascii_punctuation() { Kind::Punct } else { Kind::Other };
            push(&mut tokens, kind, c.to_string());
            i += 1;
        }
    }
    tokens
}

/// Index just past the literal opened by the quote `q` at `open`; an unterminated literal ends at
/// the end of its line (as the compiler would report it).
fn quoted_end(chars: &[(char, usize)], open: usize, q: char) -> usize {
    let mut i = open + 1;
    while i < chars.len() {
        match chars[i].0 {
            '\\' => i += 2,
            '\n' => return i,
            c if c == q => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// Index just past the raw string `"delim( ... )delim"` whose `"` is at `open`.
fn raw_string_end(chars: &[(char, usize)], open: usize) -> usize {
    let text: String = chars[open..].iter().map(|&(c, _)| c).collect();
    let Some(paren) = text.find('(') else { return quoted_end(chars, open, '"') };
    let close = format!("){}\"", &text[1..paren]);
    match text[paren..].find(&close) {
        // Byte offsets of `text` to char offsets of `chars`.
        Some(end) => open + text[..paren + end + close.len()].chars().count(),
        None => chars.len(),
    }
}

/// What a conditional's condition is known to be.
#[derive(Clone, Copy, PartialEq)]
enum Truth {
    True,
    False,
    Unknown,
}

/// `0`, `false`, `(0)` are false; `1`, `true`, `(1)` true; anything else is unknown.
fn truth(condition: &[Token]) -> Truth {
    let text: String = condition.iter().map(|t| t.text.as_str()).collect();
    match text.trim_start_matches('(').trim_end_matches(')') {
        "0" | "false" => Truth::False,
        "1" | "true" => Truth::True,
        _ => Truth::Unknown,
    }
}

/// One open conditional: whether its current branch is scanned, and whether an earlier branch was
/// certainly taken (so no later branch can be).
struct Conditional {
    outer_active: bool,
    active: bool,
    taken: bool,
}

/// Phase 4, as far as kernels are concerned: the tokens of the lines that are compiled, without
/// directive lines and without newlines.
pub(super) fn active_tokens(tokens: &[Token]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut stack: Vec<Conditional> = Vec::new();
    for line in tokens.split(|t| t.kind == Kind::Newline) {
        let active = stack.last().is_none_or(|c| c.active);
        let Some(first) = line.first() else { continue };
        if first.kind != Kind::Hash {
            if active {
                out.extend(line.iter().cloned());
            }
            continue;
        }
        let directive = line.get(1).map_or("", |t| t.text.as_str());
        let condition = line.get(2..).unwrap_or(&[]);
        match directive {
            "if" | "ifdef" | "ifndef" => {
                let t = if directive == "if" { truth(condition) } else { Truth::Unknown };
                stack.push(Conditional {
                    outer_active: active,
                    active: active && t != Truth::False,
                    taken: t == Truth::True,
                });
            }
            "elif" | "elifdef" | "elifndef" => {
                if let Some(c) = stack.last_mut() {
                    let t = if directive == "elif" { truth(condition) } else { Truth::Unknown };
                    c.active = c.outer_active && !c.taken && t != Truth::False;
                    c.taken |= t == Truth::True;
                }
            }
            "else" => {
                if let Some(c) = stack.last_mut() {
                    c.active = c.outer_active && !c.taken;
                    c.taken = true;
                }
            }
            "endif" => {
                stack.pop();
            }
            _ => {}
        }
    }
    out
}
