//! From the bytes of a capture to numbered lines: the encodings a capture arrives in.
//!
//! ncu writes UTF-8. A capture redirected by a shell may arrive otherwise:
//! - UTF-8 with a byte-order mark (`EF BB BF`; PowerShell 7 `Out-File -Encoding utf8BOM`): the mark
//!   is dropped;
//! - UTF-16 with a byte-order mark (`FF FE` little-endian, `FE FF` big-endian; Windows PowerShell
//!   5's `>` and `Out-File` write UTF-16LE with a mark): decoded to UTF-8 as it is read;
//! - UTF-16 without a mark (every other byte of the text is 0): refused with the fix, since its byte
//!   order is a guess;
//! - other binary data (0 bytes without the UTF-16 pattern, e.g. an `.ncu-rep` named `.csv`):
//!   refused with the fix.
//!
//! Lines end at `\n`; a `\r` before it is dropped. A line stays bytes here: whether a byte that is not
//! UTF-8 is tolerated depends on where the line is (program output above the table, or a table
//! row), which [`super::parse`] decides.

use crate::error::{Error, Result};
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

/// The longest line accepted, in bytes (64 MiB). An ncu row with every metric of `--set full` is
/// tens of kilobytes; a longer "line" is a file without line breaks, not CSV.
pub const MAX_LINE: usize = 64 << 20;

/// How many bytes at the start of a capture are examined to choose its encoding.
const SNIFF: usize = 4096;

/// The encoding of a capture, from its first bytes ([`Lines::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark (what ncu writes).
    Utf8,
    /// UTF-8 after a byte-order mark.
    Utf8Bom,
    /// UTF-16, little-endian, after a byte-order mark.
    Utf16Le,
    /// UTF-16, big-endian, after a byte-order mark.
    Utf16Be,
}

/// The lines of a capture, read one at a time (memory: one line, plus a fixed read buffer).
pub struct Lines<'a> {
    reader: Box<dyn BufRead + 'a>,
    origin: PathBuf,
    encoding: Encoding,
    line: Vec<u8>,
    number: usize,
}

impl<'a> Lines<'a> {
    /// Reads the first bytes of `input` to choose its encoding ([`Encoding`]); `origin` names it in
    /// errors.
    ///
    /// # Errors
    /// [`Error::Io`] if `input` cannot be read; [`Error::Ncu`] (line 1) for UTF-16 without a
    /// byte-order mark, naming the conversion, and for binary data.
    pub fn new(mut input: impl Read + 'a, origin: &Path) -> Result<Lines<'a>> {
        let mut head = Vec::with_capacity(SNIFF);
        (&mut input).take(SNIFF as u64).read_to_end(&mut head).map_err(Error::io(origin))?;
        let (encoding, skip) = match head.as_slice() {
            [0xEF, 0xBB, 0xBF, ..] => (Encoding::Utf8Bom, 3),
            [0xFF, 0xFE, ..] => (Encoding::Utf16Le, 2),
            [0xFE, 0xFF, ..] => (Encoding::Utf16Be, 2),
            _ => (Encoding::Utf8, 0),
        };
        if encoding == Encoding::Utf8 {
            check_text(&head, origin)?;
        }
        let mut head = Cursor::new(head);
        head.set_position(skip);
        let rest = BufReader::with_capacity(1 << 16, head.chain(input));
        let reader: Box<dyn BufRead + 'a> = match encoding {
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let utf16 = Utf16ToUtf8::new(rest, encoding == Encoding::Utf16Be);
                Box::new(BufReader::with_capacity(1 << 16, utf16))
            }
            _ => Box::new(rest),
        };
        Ok(Lines { reader, origin: origin.to_path_buf(), encoding, line: Vec::new(), number: 0 })
    }

    /// The encoding read from the first bytes.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The next line, without its `\r\n` or `\n`, and its 1-based number; `None` at the end.
    ///
    /// # Errors
    /// [`Error::Io`] if reading fails; [`Error::Ncu`] naming the line when it is longer than
    /// [`MAX_LINE`] or is not valid UTF-16 in a UTF-16 capture.
    pub fn next_line(&mut self) -> Result<Option<(usize, &[u8])>> {
        self.line.clear();
        let read = (&mut self.reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut self.line);
        let number = self.number + 1;
        match read {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                let message = format!(
                    "{e}. The file starts with a UTF-16 byte-order mark but is not valid UTF-16 here; \
                     write the capture again (`ncu --csv --log-file FILE` writes UTF-8)."
                );
                return Err(Error::Ncu { origin: self.origin.clone(), line: Some(number), message });
            }
            Err(e) => return Err(Error::Io { path: self.origin.clone(), source: e }),
        }
        if self.line.len() > MAX_LINE {
            let message = format!(
                "this line is longer than {} MiB, so the file is not ncu CSV (ncu ends every row with a line \
                 break); check that the file is the text ncu printed with `--csv`.",
                MAX_LINE >> 20
            );
            return Err(Error::Ncu { origin: self.origin.clone(), line: Some(number), message });
        }
        self.number = number;
        let mut end = self.line.len();
        if self.line[..end].ends_with(b"\n") {
            end -= 1;
        }
        if self.line[..end].ends_with(b"\r") {
            end -= 1;
        }
        Ok(Some((number, &self.line[..end])))
    }
}

/// Refuses UTF-16 without a byte-order mark and binary data, judged on the first bytes when the
/// first line holds a 0 byte (a file that starts as UTF-8 text is left to the parser, line by line).
fn check_text(head: &[u8], origin: &Path) -> Result<()> {
    let first_line = head.iter().position(|&b| b == b'\n').map_or(head, |end| &head[..=end]);
    if !first_line.contains(&0) {
        return Ok(());
    }
    let error = |message: String| Err(Error::Ncu { origin: origin.to_path_buf(), line: Some(1), message });
    if let Some(order) = utf16_without_bom(head) {
        let (file, utf8) = (origin.display(), origin.with_extension("utf8.csv"));
        let utf8 = utf8.display();
        return error(format!(
            "this file is UTF-16{order} without a byte-order mark (every other byte is 0), not the UTF-8 text \
             ncu writes. Convert it: `iconv -f UTF-16{order} -t UTF-8 {file} > {utf8}`; in PowerShell, \
             write the capture with `Out-File -Encoding utf8` (or let ncu write it: `ncu --csv --log-file FILE`)."
        ));
    }
    error(
        "this file holds binary data (0 bytes), not the CSV text of `ncu --csv`. If it is an Nsight Compute \
         report, name it `*.ncu-rep` so that kernelgate reads it through `ncu --import`; otherwise print the \
         capture with `ncu --csv --log-file FILE`."
            .to_string(),
    )
}

/// `Some("LE")` or `Some("BE")` when the 0 bytes of `head` sit at every other position (ASCII text
/// in UTF-16): at least 40 % of the byte pairs have a 0 on one side and (almost) none on the other.
pub fn utf16_without_bom(head: &[u8]) -> Option<&'static str> {
    let pairs = head.len() / 2;
    if pairs < 2 {
        return None;
    }
    let zero_at = |parity: usize| head.chunks_exact(2).filter(|p| p[parity] == 0).count();
    let (even, odd) = (zero_at(0), zero_at(1));
    let mostly = |n: usize, other: usize| n * 10 >= pairs * 4 && other * 20 <= n;
    if mostly(odd, even) {
        Some("LE")
    } else if mostly(even, odd) {
        Some("BE")
    } else {
        None
    }
}

/// Decodes UTF-16 (after its byte-order mark) into UTF-8 as it is read. Invalid UTF-16 is an
/// [`std::io::ErrorKind::InvalidData`] error, returned once the text before it has been read (so
/// that the reader knows the line it is on).
struct Utf16ToUtf8<R> {
    inner: R,
    big_endian: bool,
    /// Decoded bytes not yet handed out, from `start`.
    out: Vec<u8>,
    start: usize,
    /// A byte of an incomplete code unit, and a high surrogate waiting for its low half.
    odd: Option<u8>,
    high: Option<u16>,
    /// Code units decoded so far, for the byte offset in errors.
    units: usize,
    error: Option<std::io::Error>,
    done: bool,
}

impl<R: Read> Utf16ToUtf8<R> {
    fn new(inner: R, big_endian: bool) -> Self {
        Utf16ToUtf8 {
            inner,
            big_endian,
            out: Vec::new(),
            start: 0,
            odd: None,
            high: None,
            units: 0,
            error: None,
            done: false,
        }
    }

    /// Decodes the next chunk of input into `out`; stops at the first invalid code unit, keeping
    /// the error for after the text before it.
    fn fill(&mut self) -> std::io::Result<()> {
        let mut chunk = [0u8; 1 << 15];
        let n = self.inner.read(&mut chunk)?;
        self.out.clear();
        self.start = 0;
        if n == 0 {
            self.done = true;
            if self.odd.is_some() || self.high.is_some() {
                self.error = Some(self.invalid("the text ends inside a character"));
            }
            return Ok(());
        }
        let be = self.big_endian;
        let unit = |a: u8, b: u8| if be { u16::from_be_bytes([a, b]) } else { u16::from_le_bytes([a, b]) };
        let mut bytes = chunk[..n].iter().copied();
        let mut units = Vec::with_capacity(n / 2 + 1);
        if let Some(a) = self.odd.take() {
            units.push(unit(a, bytes.next().expect("n > 0")));
        }
        loop {
            match (bytes.next(), bytes.next()) {
                (Some(a), Some(b)) => units.push(unit(a, b)),
                (Some(a), None) => {
                    self.odd = Some(a);
                    break;
                }
                _ => break,
            }
        }
        for u in units {
            let c = match (self.high.take(), u) {
                (None, 0xD800..=0xDBFF) => {
                    self.high = Some(u);
                    self.units += 1;
                    continue;
                }
                (None, 0xDC00..=0xDFFF) => Err("a low surrogate without its high half"),
                (None, u) => Ok(u32::from(u)),
                (Some(h), 0xDC00..=0xDFFF) => Ok(0x10000 + ((u32::from(h) - 0xD800) << 10) + (u32::from(u) - 0xDC00)),
                (Some(_), _) => Err("a high surrogate without its low half"),
            };
            match c.map(|c| char::from_u32(c).expect("a valid scalar value")) {
                Ok(c) => self.out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                Err(what) => {
                    self.error = Some(self.invalid(what));
                    self.done = true;
                    return Ok(());
                }
            }
            self.units += 1;
        }
        Ok(())
    }

    /// The error for invalid UTF-16 at the current code unit (byte offset counted after the mark).
    fn invalid(&self, what: &str) -> std::io::Error {
        let at = self.units * 2 + 2;
        std::io::Error::new(std::io::ErrorKind::InvalidData, format!("invalid UTF-16 at byte {at}: {what}"))
    }
}

impl<R: Read> Read for Utf16ToUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.start == self.out.len() && !self.done {
            self.fill()?;
        }
        if self.start == self.out.len() {
            return self.error.take().map_or(Ok(0), Err);
        }
        let n = buf.len().min(self.out.len() - self.start);
        buf[..n].copy_from_slice(&self.out[self.start..self.start + n]);
        self.start += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Result<(Encoding, Vec<(usize, String)>)> {
        let mut lines = Lines::new(bytes, Path::new("c.csv"))?;
        let mut out = Vec::new();
        while let Some((n, line)) = lines.next_line()? {
            out.push((n, String::from_utf8(line.to_vec()).unwrap()));
        }
        Ok((lines.encoding(), out))
    }

    fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
        let mut out = if bom { if big_endian { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] } } else { Vec::new() };
        for u in text.encode_utf16() {
            out.extend(if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
        }
        out
    }

    fn error(bytes: &[u8]) -> (Option<usize>, String) {
        match lines(bytes) {
            Err(Error::Ncu { line, message, .. }) => (line, message),
            other => panic!("expected Error::Ncu, got {other:?}"),
        }
    }

    const TEXT: &str = "a,b\r\n\"é\",\"𝄞 x\"\n\nlast";

    #[test]
    fn utf8_with_and_without_bom_and_line_ends() {
        let want = vec![(1, "a,b".into()), (2, "\"é\",\"𝄞 x\"".into()), (3, String::new()), (4, "last".into())];
        assert_eq!(lines(TEXT.as_bytes()).unwrap(), (Encoding::Utf8, want.clone()));
        let bom = [&[0xEF, 0xBB, 0xBF][..], TEXT.as_bytes()].concat();
        assert_eq!(lines(&bom).unwrap(), (Encoding::Utf8Bom, want));
        assert_eq!(lines(b"").unwrap().1, []);
    }

    #[test]
    fn utf16_with_bom_is_decoded_in_either_byte_order() {
        let want = lines(TEXT.as_bytes()).unwrap().1;
        assert_eq!(lines(&utf16(TEXT, false, true)).unwrap(), (Encoding::Utf16Le, want.clone()));
        assert_eq!(lines(&utf16(TEXT, true, true)).unwrap(), (Encoding::Utf16Be, want.clone()));
        // Longer than one decoding chunk, so that code units and surrogate pairs straddle chunks.
        let long: String = (0..20_000).map(|i| format!("{i},𝄞\n")).collect();
        let (_, got) = lines(&utf16(&long, false, true)).unwrap();
        assert_eq!(got.len(), 20_000);
        assert_eq!(got[19_999], (20_000, "19999,𝄞".to_string()));
    }

    #[test]
    fn utf16_without_bom_and_binary_data_are_refused_with_the_fix() {
        for (big_endian, order) in [(false, "LE"), (true, "BE")] {
            let (line, message) = error(&utf16("\"ID\",\"Kernel Name\"\r\n", big_endian, false));
            assert_eq!(line, Some(1));
            assert!(message.contains(&format!("UTF-16{order} without a byte-order mark")), "{message}");
            assert!(message.contains(&format!("iconv -f UTF-16{order} -t UTF-8")), "{message}");
            assert!(message.contains("Out-File -Encoding utf8"), "{message}");
        }
        let (line, message) = error(b"NCU\x00\x01\x02\x00\x00\x00\x07binary\xff\x00");
        assert_eq!(line, Some(1));
        assert!(message.contains("binary data") && message.contains(".ncu-rep"), "{message}");
        assert_eq!(utf16_without_bom(b"ab"), None);
    }

    #[test]
    fn broken_utf16_names_its_line() {
        let mut bytes = utf16("ok\nbad ", false, true);
        bytes.extend([0x00, 0xDC, b'x', 0]); // a lone low surrogate on line 2
        let (line, message) = error(&bytes);
        assert_eq!(line, Some(2));
        assert!(message.contains("invalid UTF-16") && message.contains("low surrogate"), "{message}");
        let (line, message) = error(&utf16("ok\nodd", false, true)[..13]); // cut inside a code unit
        assert_eq!(line, Some(2));
        assert!(message.contains("ends inside a character"), "{message}");
    }
}
