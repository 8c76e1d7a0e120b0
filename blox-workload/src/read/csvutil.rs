//! Shared CSV plumbing: header lookup, record iteration with line numbers, typed fields whose
//! errors name file, line and field.

use super::{Collector, Row};
use crate::WorkloadError;
use std::path::Path;

/// A CSV with a header row, read from bytes.
pub(crate) struct Table<'a> {
    bytes: &'a [u8],
    origin: &'a Path,
    headers: Vec<String>,
    rdr: csv::Reader<&'a [u8]>,
}

impl<'a> Table<'a> {
    /// Reads the header. An unreadable or empty header is an error at line 1.
    pub(crate) fn new(bytes: &'a [u8], origin: &'a Path) -> Result<Self, WorkloadError> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(bytes);
        let headers: Vec<String> = rdr
            .headers()
            .map_err(|e| {
                WorkloadError::input(origin, Some(1), None, format!("unreadable header: {e}"))
            })?
            .iter()
            .map(|h| h.trim().trim_start_matches('\u{feff}').to_owned())
            .collect();
        if headers.iter().all(String::is_empty) {
            return Err(WorkloadError::input(
                origin,
                Some(1),
                None,
                "empty input: expected a header row",
            ));
        }
        Ok(Table {
            bytes,
            origin,
            headers,
            rdr,
        })
    }

    /// Index of an optional column.
    pub(crate) fn col(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// Index of a required column; `what` says which file layout needs it.
    pub(crate) fn require(&self, name: &str, what: &str) -> Result<usize, WorkloadError> {
        self.col(name).ok_or_else(|| {
            WorkloadError::at(
                self.origin,
                1,
                name,
                format!("missing column `{name}` in the header ({what})"),
            )
        })
    }

    /// Calls `f` on every non-blank record, handing its result to `sink`. A record the CSV
    /// layer cannot read (e.g. invalid UTF-8) is a bad line.
    pub(crate) fn for_each(
        mut self,
        sink: &mut Collector,
        mut f: impl FnMut(&Fields<'_>) -> Result<Row, WorkloadError>,
    ) -> Result<(), WorkloadError> {
        let mut record = csv::StringRecord::new();
        let mut last_err_byte = None;
        let mut lines = LineCounter::default();
        loop {
            let line = self.rdr.position().line() + 1;
            match self.rdr.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    let line = e.position().map_or(line, |p| p.line());
                    sink.bad(WorkloadError::input(
                        self.origin,
                        Some(line),
                        None,
                        format!("unreadable row: {e}"),
                    ))?;
                    // The csv reader resumes after the bad record; stop rather than loop if it
                    // ever reports an error without advancing.
                    let at = self.rdr.position().byte();
                    if last_err_byte == Some(at) {
                        break;
                    }
                    last_err_byte = Some(at);
                    continue;
                }
            }
            // The csv crate's own line count lags by one after a CRLF (it starts the record at
            // the `\n`), so count newlines up to the record's first byte ourselves.
            let line = record
                .position()
                .map_or(line, |p| lines.line_at(self.bytes, p.byte()));
            if record.iter().all(|s| s.trim().is_empty()) {
                continue;
            }
            let fields = Fields {
                record: &record,
                line,
                origin: self.origin,
            };
            sink.take_at(f(&fields), self.origin, line)?;
        }
        Ok(())
    }
}

/// One record's fields, with typed getters whose errors name file, line and field.
pub(crate) struct Fields<'a> {
    record: &'a csv::StringRecord,
    /// 1-based line where the record starts.
    pub(crate) line: u64,
    origin: &'a Path,
}

impl Fields<'_> {
    /// An error on this line for `field`.
    pub(crate) fn err(&self, field: &str, message: impl Into<String>) -> WorkloadError {
        WorkloadError::at(self.origin, self.line, field, message)
    }

    /// A trimmed, possibly empty, value (`None` if the row is too short).
    pub(crate) fn raw(&self, i: usize) -> Option<&str> {
        self.record.get(i).map(str::trim)
    }

    /// A trimmed non-empty value, or `None` when empty or absent.
    pub(crate) fn opt(&self, i: Option<usize>) -> Option<&str> {
        i.and_then(|i| self.raw(i)).filter(|s| !s.is_empty())
    }

    /// A required non-empty value.
    pub(crate) fn str(&self, i: usize, name: &str) -> Result<&str, WorkloadError> {
        self.raw(i)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| self.err(name, "missing value"))
    }

    /// A finite number ≥ 0.
    pub(crate) fn nonneg(&self, i: usize, name: &str) -> Result<f64, WorkloadError> {
        let v = self.str(i, name)?;
        parse_nonneg(v).ok_or_else(|| self.err(name, format!("`{v}` is not a number ≥ 0")))
    }

    /// A time or duration in seconds: a finite number in `0..=MAX_TRACE_SECONDS`.
    pub(crate) fn secs(&self, i: usize, name: &str) -> Result<f64, WorkloadError> {
        let v = self.nonneg(i, name)?;
        super::within_bound(v).map_err(|m| self.err(name, m))
    }

    /// A whole number that fits in u32 (a GPU count; `4.0` is accepted, `4.5` is not).
    pub(crate) fn count(&self, i: usize, name: &str) -> Result<u32, WorkloadError> {
        let v = self.str(i, name)?;
        parse_count(v).ok_or_else(|| {
            if v.parse::<u64>().is_ok() {
                self.err(name, format!("`{v}` is above the bound of {}", u32::MAX))
            } else {
                self.err(name, format!("`{v}` is not a whole number ≥ 0"))
            }
        })
    }
}

/// A finite number ≥ 0.
pub(crate) fn parse_nonneg(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0)
}

/// A whole number ≥ 0 that fits in u32, written as an integer or as an integral float.
pub(crate) fn parse_count(v: &str) -> Option<u32> {
    if let Ok(n) = v.parse::<u32>() {
        return Some(n);
    }
    let x = v.parse::<f64>().ok()?;
    (x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= f64::from(u32::MAX)).then_some(x as u32)
}

/// 1-based line of a byte offset, counted incrementally (offsets must not decrease).
#[derive(Default)]
struct LineCounter {
    pos: usize,
    newlines: u64,
}

impl LineCounter {
    /// The line of the first byte at or after `offset` that is not a line terminator.
    fn line_at(&mut self, bytes: &[u8], offset: u64) -> u64 {
        let mut start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        while start < bytes.len() && (bytes[start] == b'\r' || bytes[start] == b'\n') {
            start += 1;
        }
        if start > self.pos {
            self.newlines += bytes[self.pos..start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            self.pos = start;
        }
        self.newlines + 1
    }
}
