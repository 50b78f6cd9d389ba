//! requests.parquet written as the run goes, on a thread of its own.
//!
//! Rows arrive in batches of [`ROW_GROUP`]; each batch becomes one row
//! group. Encoding and compressing a row group takes about as long as
//! simulating it, so a second thread does it while the simulation goes on
//! (the machine's second core); a rendezvous channel keeps one batch
//! filling and one being written, so memory stays flat. The file is written under a temporary
//! name and renamed when it is complete: a reader never sees half a file,
//! and a failed run leaves none.

use super::stream::Row;
use crate::error::{Error, Result};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::data_type::{BoolType, Int32Type, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Rows per row group.
pub const ROW_GROUP: usize = 1 << 15;
/// Bytes buffered on their way to the file.
const WRITE_BUFFER: usize = 256 << 10;

/// The columns, as docs/results.md lists them; unsigned integers keep their
/// sign in the logical type, so pyarrow and polars read u64/u32.
const SCHEMA: &str = "message requests {
    REQUIRED INT64 arrival_ns (INTEGER(64,false));
    REQUIRED INT64 latency_ns (INTEGER(64,false));
    REQUIRED INT64 offset (INTEGER(64,false));
    REQUIRED INT32 size (INTEGER(32,false));
    REQUIRED BOOLEAN is_write;
    REQUIRED INT32 bus_ns (INTEGER(32,false));
    REQUIRED INT32 array_ns (INTEGER(32,false));
    REQUIRED INT32 delay_ns (INTEGER(32,false));
    REQUIRED BOOLEAN warmup;
    REQUIRED INT64 queue_ns (INTEGER(64,false));
    REQUIRED BOOLEAN lost;
    REQUIRED INT32 retry_steps (INTEGER(32,false));
}";

/// One row group's columns (unsigned values in their signed twins' bits,
/// as Parquet stores them).
#[derive(Default)]
struct Batch {
    arrival: Vec<i64>,
    latency: Vec<i64>,
    offset: Vec<i64>,
    size: Vec<i32>,
    write: Vec<bool>,
    bus: Vec<i32>,
    array: Vec<i32>,
    delay: Vec<i32>,
    warmup: Vec<bool>,
    queue: Vec<i64>,
    lost: Vec<bool>,
    retry_steps: Vec<i32>,
}

impl Batch {
    fn with_capacity(n: usize) -> Batch {
        Batch {
            arrival: Vec::with_capacity(n),
            latency: Vec::with_capacity(n),
            offset: Vec::with_capacity(n),
            size: Vec::with_capacity(n),
            write: Vec::with_capacity(n),
            bus: Vec::with_capacity(n),
            array: Vec::with_capacity(n),
            delay: Vec::with_capacity(n),
            warmup: Vec::with_capacity(n),
            queue: Vec::with_capacity(n),
            lost: Vec::with_capacity(n),
            retry_steps: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, r: &Row) {
        self.arrival.push(r.arrival_ns as i64);
        self.latency.push(r.latency_ns as i64);
        self.offset.push(r.offset as i64);
        self.size.push(r.size as i32);
        self.write.push(r.is_write);
        self.bus.push(r.bus_ns as i32);
        self.array.push(r.array_ns as i32);
        self.delay.push(r.delay_ns as i32);
        self.warmup.push(r.warmup);
        self.queue.push(r.queue_ns() as i64);
        self.lost.push(r.lost);
        self.retry_steps.push(r.retry_steps as i32);
    }

    fn len(&self) -> usize {
        self.arrival.len()
    }
}

// One message per batch of rows, moved once into the channel: boxing would add an allocation each.
#[allow(clippy::large_enum_variant)]
enum Msg {
    Rows(Batch),
    /// Key-value metadata for the footer; then the file is complete.
    Close(Vec<(String, String)>),
}

/// A requests.parquet being written.
pub struct ParquetSink {
    path: PathBuf,
    batch: Batch,
    tx: Option<SyncSender<Msg>>,
    worker: Option<JoinHandle<Result<()>>>,
}

impl ParquetSink {
    /// Start writing `path` (through a temporary file beside it).
    pub fn create(path: &Path) -> Result<ParquetSink> {
        let tmp = temporary_name(path);
        let file = File::create(&tmp).map_err(|e| Error::io(tmp.display().to_string(), e))?;
        let schema = Arc::new(parse_message_type(SCHEMA).map_err(|e| pq_err(path, e))?);
        // The encoder hands over whole compressed pages (tens of KiB), so a
        // small buffer costs no extra writes; a large one costs peak memory.
        let writer = SerializedFileWriter::new(BufWriter::with_capacity(WRITE_BUFFER, file), schema, Arc::new(properties()))
            .map_err(|e| pq_err(path, e))?;
        let (tx, rx) = sync_channel::<Msg>(0);
        let (dest, tmp_w) = (path.to_path_buf(), tmp.clone());
        let worker = std::thread::Builder::new()
            .name("detour-parquet".into())
            .spawn(move || {
                let r = write_all(writer, rx.iter(), &dest, &tmp_w);
                if r.is_err() {
                    let _ = std::fs::remove_file(&tmp_w);
                }
                r
            })
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        Ok(ParquetSink { path: path.to_path_buf(), batch: Batch::with_capacity(ROW_GROUP), tx: Some(tx), worker: Some(worker) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    #[inline]
    pub fn push(&mut self, r: &Row) -> Result<()> {
        self.batch.push(r);
        if self.batch.len() == ROW_GROUP {
            let full = std::mem::replace(&mut self.batch, Batch::with_capacity(ROW_GROUP));
            self.send(Msg::Rows(full))?;
        }
        Ok(())
    }

    /// Write the last rows and the footer (with `metadata`), and put the
    /// file in place.
    pub fn close(mut self, metadata: Vec<(String, String)>) -> Result<()> {
        if self.batch.len() > 0 {
            let last = std::mem::take(&mut self.batch);
            self.send(Msg::Rows(last))?;
        }
        self.send(Msg::Close(metadata))?;
        self.tx = None;
        self.join()
    }

    /// A failed send means the writer stopped: its error says why.
    fn send(&mut self, m: Msg) -> Result<()> {
        let sent = self.tx.as_ref().is_some_and(|tx| tx.send(m).is_ok());
        if sent {
            return Ok(());
        }
        self.tx = None;
        self.join()?;
        Err(io_err(&self.path, "its writer stopped early"))
    }

    fn join(&mut self) -> Result<()> {
        match self.worker.take().map(|w| w.join()) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(e),
            Some(Err(_)) => Err(io_err(&self.path, "its writer failed")),
        }
    }
}

impl Drop for ParquetSink {
    /// A run that failed leaves no file: the writer sees the channel close
    /// without `Close` and removes its temporary file.
    fn drop(&mut self) {
        self.tx = None;
        let _ = self.join();
    }
}

fn properties() -> WriterProperties {
    let b = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        // Arrival times ascend and the others are small: delta encoding
        // packs them better and faster than a dictionary.
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_created_by(format!("detour {}", env!("CARGO_PKG_VERSION")));
    ["arrival_ns", "latency_ns", "offset", "size", "bus_ns", "array_ns", "delay_ns", "queue_ns"]
        .into_iter()
        .fold(b, |b, c| b.set_column_encoding(ColumnPath::from(c), Encoding::DELTA_BINARY_PACKED))
        .build()
}

fn temporary_name(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

fn io_err(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::io(path.display().to_string(), std::io::Error::other(why.to_string()))
}

fn pq_err(path: &Path, e: parquet::errors::ParquetError) -> Error {
    io_err(path, e)
}

fn write_all(mut w: SerializedFileWriter<BufWriter<File>>, msgs: impl Iterator<Item = Msg>, dest: &Path, tmp: &Path) -> Result<()> {
    let err = |e| pq_err(dest, e);
    for m in msgs {
        match m {
            Msg::Rows(b) => write_group(&mut w, &b).map_err(err)?,
            Msg::Close(meta) => {
                for (k, v) in meta {
                    w.append_key_value_metadata(KeyValue::new(k, v));
                }
                w.close().map_err(err)?;
                return std::fs::rename(tmp, dest).map_err(|e| Error::io(dest.display().to_string(), e));
            }
        }
    }
    // The run stopped before closing: leave no file.
    Err(io_err(dest, "the run stopped before the file was complete"))
}

fn write_group(w: &mut SerializedFileWriter<BufWriter<File>>, b: &Batch) -> parquet::errors::Result<()> {
    let mut g = w.next_row_group()?;
    let mut k = 0;
    while let Some(mut c) = g.next_column()? {
        match k {
            0 => c.typed::<Int64Type>().write_batch(&b.arrival, None, None)?,
            1 => c.typed::<Int64Type>().write_batch(&b.latency, None, None)?,
            2 => c.typed::<Int64Type>().write_batch(&b.offset, None, None)?,
            3 => c.typed::<Int32Type>().write_batch(&b.size, None, None)?,
            4 => c.typed::<BoolType>().write_batch(&b.write, None, None)?,
            5 => c.typed::<Int32Type>().write_batch(&b.bus, None, None)?,
            6 => c.typed::<Int32Type>().write_batch(&b.array, None, None)?,
            7 => c.typed::<Int32Type>().write_batch(&b.delay, None, None)?,
            8 => c.typed::<BoolType>().write_batch(&b.warmup, None, None)?,
            9 => c.typed::<Int64Type>().write_batch(&b.queue, None, None)?,
            10 => c.typed::<BoolType>().write_batch(&b.lost, None, None)?,
            _ => c.typed::<Int32Type>().write_batch(&b.retry_steps, None, None)?,
        };
        c.close()?;
        k += 1;
    }
    g.close()?;
    Ok(())
}
