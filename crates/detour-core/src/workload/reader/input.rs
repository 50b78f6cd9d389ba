//! Bytes to lines: transparent decompression chosen by magic bytes (trace
//! files are often renamed or piped, so extensions lie), and a line reader
//! that bounds line length so a binary file cannot make it buffer gigabytes.

use std::io::{self, BufRead, BufReader, Read};

/// Longest line accepted; real trace lines are under 200 bytes.
pub(super) const MAX_LINE: usize = 1 << 20;

const GZIP: &[u8] = &[0x1f, 0x8b];
const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
const XZ: &[u8] = &[0xfd, b'7', b'z', b'X', b'Z', 0];
const BZIP2: &[u8] = b"BZh";

/// Wrap `reader` in the decompressor its first bytes call for. The result
/// is read in blocks by [`Lines`], which buffers it: no buffer of its own.
pub(super) fn decompress(reader: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut buffered = BufReader::with_capacity(1 << 16, reader);
    let head = buffered.fill_buf()?;
    if head.starts_with(GZIP) {
        Ok(Box::new(flate2::bufread::MultiGzDecoder::new(buffered)))
    } else if head.starts_with(ZSTD) {
        Ok(Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?))
    } else if head.starts_with(XZ) || head.starts_with(BZIP2) {
        let what = if head.starts_with(XZ) { "xz" } else { "bzip2" };
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{what}-compressed input is not supported; decompress it or recompress with gzip or zstd"),
        ))
    } else {
        Ok(Box::new(buffered))
    }
}

/// One line as read: its 1-based number and its bytes without the
/// terminator, or why it is unusable (too long), which the stream reports
/// as malformed.
pub(super) type RawLine<'a> = (u64, Result<&'a [u8], String>);

/// A line without its terminator (`\n`, `\r\n`).
fn strip(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// A line's text, or why it is not text.
pub(super) fn utf8(line: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(line).map_err(|e| format!("not valid UTF-8 text ({e})"))
}

/// Numbered lines without terminators (`\n` or `\r\n`), cut out of one
/// buffer that is refilled a block at a time: a line is returned in place,
/// and the reader behind it is called once per block, not per line.
pub(super) struct Lines {
    inner: Box<dyn Read + Send>,
    number: u64,
    buf: Vec<u8>,
    /// The unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
}

/// Bytes read from the input at a time.
const BLOCK: usize = 1 << 16;

impl Lines {
    pub(super) fn new(inner: Box<dyn Read + Send>) -> Self {
        Lines { inner, number: 0, buf: vec![0; BLOCK], start: 0, end: 0, eof: false }
    }

    /// The next line, or `None` at the end of the input.
    pub(super) fn next_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        loop {
            let unread = &self.buf[self.start..self.end];
            let newline = memchr::memchr(b'\n', unread);
            if newline.unwrap_or(unread.len()) > MAX_LINE {
                self.discard_rest()?;
                self.number += 1;
                return Ok(Some((self.number, Err(format!("line longer than {MAX_LINE} bytes")))));
            }
            if let Some(i) = newline {
                let line = self.start..self.start + i;
                self.start += i + 1;
                return Ok(Some(self.numbered(line)));
            }
            if self.eof {
                if unread.is_empty() {
                    return Ok(None);
                }
                // The last line has no newline.
                let line = self.start..self.end;
                self.start = self.end;
                return Ok(Some(self.numbered(line)));
            }
            self.refill()?;
        }
    }

    fn numbered(&mut self, line: std::ops::Range<usize>) -> RawLine<'_> {
        self.number += 1;
        (self.number, Ok(strip(&self.buf[line])))
    }

    /// Keep the unread bytes (a partial line) at the front and read another
    /// block behind them, growing the buffer for a line longer than a block.
    fn refill(&mut self) -> io::Result<()> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.buf.len() - self.end < BLOCK {
            self.buf.resize(self.end + BLOCK, 0);
        }
        let n = loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        self.end += n;
        self.eof = n == 0;
        Ok(())
    }

    /// Drop the over-long line: up to and including its newline.
    fn discard_rest(&mut self) -> io::Result<()> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                self.start += i + 1;
                return Ok(());
            }
            self.start = self.end;
            if self.eof {
                return Ok(());
            }
            self.refill()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(bytes: Vec<u8>) -> Vec<(u64, Result<String, String>)> {
        let mut lines = Lines::new(decompress(Box::new(io::Cursor::new(bytes))).unwrap());
        let mut out = Vec::new();
        while let Some((n, t)) = lines.next_line().unwrap() {
            out.push((n, t.and_then(utf8).map(str::to_string)));
        }
        out
    }

    #[test]
    fn strips_terminators_and_numbers_lines() {
        let got = lines_of(b"a\r\nb\n\nc".to_vec());
        let want: Vec<(u64, Result<String, String>)> =
            vec![(1, Ok("a".into())), (2, Ok("b".into())), (3, Ok("".into())), (4, Ok("c".into()))];
        assert_eq!(got, want);
    }

    /// A reader that hands out its bytes a few at a time, with interruptions.
    struct Trickle {
        bytes: Vec<u8>,
        at: usize,
        calls: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls % 5 == 0 {
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            let n = (self.calls * 7919 % 300 + 1).min(out.len()).min(self.bytes.len() - self.at);
            out[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn lines_across_blocks_and_short_reads_come_out_whole() {
        let mut text = String::new();
        for i in 0..40_000u32 {
            let len = (i.wrapping_mul(2_654_435_761) >> 22) as usize; // 0..1023 bytes
            text.extend(std::iter::repeat_n(char::from(b'a' + (i % 26) as u8), len));
            text.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
        }
        text.push_str("last, without a newline");
        let want: Vec<String> = text.split('\n').map(|l| l.trim_end_matches('\r').to_string()).collect();
        for reader in [
            Box::new(io::Cursor::new(text.clone().into_bytes())) as Box<dyn Read + Send>,
            Box::new(Trickle { bytes: text.clone().into_bytes(), at: 0, calls: 0 }),
        ] {
            let mut lines = Lines::new(reader);
            let mut got = Vec::new();
            while let Some((n, t)) = lines.next_line().unwrap() {
                assert_eq!(n as usize, got.len() + 1);
                got.push(String::from_utf8(t.unwrap().to_vec()).unwrap());
            }
            assert_eq!(got, want);
        }
        assert!(text.len() > 4 * BLOCK);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        let mut bytes = vec![b'y'; MAX_LINE];
        bytes.extend(b"\n");
        bytes.extend(vec![b'z'; MAX_LINE + 1]);
        let got = lines_of(bytes);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1.as_ref().map(|l| l.len()), Ok(MAX_LINE));
        assert!(got[1].1.is_err(), "an over-long last line without a newline");
    }

    #[test]
    fn bad_utf8_and_overlong_lines_are_reported_not_fatal() {
        let mut bytes = vec![0xff, 0xfe, b'\n'];
        bytes.extend(vec![b'x'; MAX_LINE + 10]);
        bytes.extend(b"\nok\n");
        let got = lines_of(bytes);
        assert_eq!(got.len(), 3);
        assert!(got[0].1.is_err() && got[1].1.is_err());
        assert_eq!(got[2], (3, Ok("ok".to_string())));
    }

    #[test]
    fn decompresses_gzip_and_zstd_by_magic() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"hello\n").unwrap();
        assert_eq!(lines_of(gz.finish().unwrap()), vec![(1, Ok("hello".to_string()))]);
        let zst = zstd::encode_all(&b"hi\nthere\n"[..], 3).unwrap();
        assert_eq!(lines_of(zst).len(), 2);
    }

    #[test]
    fn xz_is_refused_with_a_reason() {
        let err = decompress(Box::new(io::Cursor::new(XZ.to_vec()))).err().unwrap();
        assert!(err.to_string().contains("xz"));
    }
}
