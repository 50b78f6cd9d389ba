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

/// Wrap `reader` in the decompressor its first bytes call for.
pub(super) fn decompress(reader: Box<dyn Read + Send>) -> io::Result<Box<dyn BufRead + Send>> {
    let mut buffered = BufReader::with_capacity(1 << 16, reader);
    let head = buffered.fill_buf()?;
    if head.starts_with(GZIP) {
        let gz = flate2::bufread::MultiGzDecoder::new(buffered);
        Ok(Box::new(BufReader::with_capacity(1 << 16, gz)))
    } else if head.starts_with(ZSTD) {
        let zst = zstd::stream::read::Decoder::with_buffer(buffered)?;
        Ok(Box::new(BufReader::with_capacity(1 << 16, zst)))
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

/// Numbered lines without terminators (`\n` or `\r\n`), reusing one buffer.
pub(super) struct Lines {
    inner: Box<dyn BufRead + Send>,
    number: u64,
    buf: Vec<u8>,
    /// Bytes of the reader's buffer the last line took, consumed on the
    /// next call: a line inside the buffer is returned in place, uncopied.
    taken: usize,
}

impl Lines {
    pub(super) fn new(inner: Box<dyn BufRead + Send>) -> Self {
        Lines {
            inner,
            number: 0,
            buf: Vec::with_capacity(256),
            taken: 0,
        }
    }

    /// The next line, or `None` at the end of the input.
    pub(super) fn next_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.inner.consume(std::mem::take(&mut self.taken));
        let Some(end) = memchr::memchr(b'\n', self.inner.fill_buf()?) else {
            return self.read_spanning_line();
        };
        self.taken = end + 1;
        self.number += 1;
        // The buffer is not empty, so this returns it again without reading.
        Ok(Some((self.number, Ok(strip(&self.inner.fill_buf()?[..end])))))
    }

    /// A line that runs past the reader's buffer (or ends the input without
    /// a newline): copied into `buf`, at most `MAX_LINE` bytes of it.
    fn read_spanning_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.buf.clear();
        let limit = MAX_LINE as u64 + 1;
        let n = self
            .inner
            .by_ref()
            .take(limit)
            .read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        if self.buf.len() > MAX_LINE && !self.buf.ends_with(b"\n") {
            self.discard_rest()?;
            return Ok(Some((
                self.number,
                Err(format!("line longer than {MAX_LINE} bytes")),
            )));
        }
        Ok(Some((self.number, Ok(strip(&self.buf)))))
    }

    /// Skip to just past the next newline, without buffering.
    fn discard_rest(&mut self) -> io::Result<()> {
        loop {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                return Ok(());
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.inner.consume(i + 1);
                    return Ok(());
                }
                None => {
                    let len = chunk.len();
                    self.inner.consume(len);
                }
            }
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
        let want: Vec<(u64, Result<String, String>)> = vec![
            (1, Ok("a".into())),
            (2, Ok("b".into())),
            (3, Ok("".into())),
            (4, Ok("c".into())),
        ];
        assert_eq!(got, want);
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
        assert_eq!(
            lines_of(gz.finish().unwrap()),
            vec![(1, Ok("hello".to_string()))]
        );
        let zst = zstd::encode_all(&b"hi\nthere\n"[..], 3).unwrap();
        assert_eq!(lines_of(zst).len(), 2);
    }

    #[test]
    fn xz_is_refused_with_a_reason() {
        let err = decompress(Box::new(io::Cursor::new(XZ.to_vec())))
            .err()
            .unwrap();
        assert!(err.to_string().contains("xz"));
    }
}
