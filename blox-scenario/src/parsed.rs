//! [`Parsed`]: a scenario value written as text (its form in scenario files, flags and
//! `summary.json`) and parsed once, when it is set.

use blox_core::ClusterSpec;
use blox_nodes::{AutoscaleSpec, FailureSpec};
use blox_sim::TrackWindow;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::Deref;

/// A type a [`Parsed`] value holds: how its text is read, with the error in the words
/// [`Scenario::check`](crate::Scenario::check) reports under the field's key.
pub trait FromText: Sized {
    /// Read `text`.
    fn from_text(text: &str) -> Result<Self, String>;
}

impl FromText for ClusterSpec {
    fn from_text(text: &str) -> Result<Self, String> {
        text.parse::<ClusterSpec>().map_err(|e| e.0)
    }
}

impl FromText for TrackWindow {
    fn from_text(text: &str) -> Result<Self, String> {
        text.parse::<TrackWindow>().map_err(|e| e.to_string())
    }
}

fn node_message(e: blox_nodes::NodeError) -> String {
    match e {
        blox_nodes::NodeError::Input { message, .. } => message,
        other => other.to_string(),
    }
}

impl FromText for FailureSpec {
    fn from_text(text: &str) -> Result<Self, String> {
        text.parse::<FailureSpec>().map_err(node_message)
    }
}

impl FromText for AutoscaleSpec {
    fn from_text(text: &str) -> Result<Self, String> {
        text.parse::<AutoscaleSpec>().map_err(node_message)
    }
}

/// A value given as text and parsed when it is set (from a file, a flag or `.into()`): it
/// keeps the text as written (what files and `summary.json` show, byte for byte) and the
/// parsed value, or the reason the text does not parse, which
/// [`Scenario::check`](crate::Scenario::check) reports under the field's key before any run.
///
/// It reads as its text (`Deref<Target = str>`, `Display`, comparison with `&str`), so
/// `scenario.cluster = "2x8:v100,4x4:k80".into()` sets a cluster and `&*scenario.cluster` is
/// its text; [`Parsed::value`] is the parsed value.
///
/// ```
/// use blox_scenario::{Parsed, Scenario};
/// let mut s = Scenario::default();
/// s.cluster = "2x8:v100,4x4:k80".into();
/// assert_eq!(s.cluster.value().unwrap().total_gpus(), 32);
/// assert_eq!(s.cluster, "2x8:v100,4x4:k80");
/// let bad: Parsed<blox_core::ClusterSpec> = "2by8".into();
/// assert!(bad.value().unwrap_err().contains("NODESxGPUS"));
/// ```
#[derive(Clone)]
pub struct Parsed<T> {
    text: String,
    value: Result<T, String>,
}

impl<T: FromText> Parsed<T> {
    /// Parse `text`; a text that does not parse is kept with its error.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let value = T::from_text(&text);
        Parsed { text, value }
    }
}

impl<T> Parsed<T> {
    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The parsed value, or why the text does not parse.
    pub fn value(&self) -> Result<&T, &str> {
        self.value.as_ref().map_err(String::as_str)
    }
}

impl<T: FromText> From<&str> for Parsed<T> {
    fn from(text: &str) -> Self {
        Parsed::new(text)
    }
}

impl<T: FromText> From<String> for Parsed<T> {
    fn from(text: String) -> Self {
        Parsed::new(text)
    }
}

impl<T> Deref for Parsed<T> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl<T> fmt::Display for Parsed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<T> fmt::Debug for Parsed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text, f)
    }
}

/// Two values are equal when their texts are (the value is a function of the text).
impl<T> PartialEq for Parsed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl<T> PartialEq<str> for Parsed<T> {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl<T> PartialEq<&str> for Parsed<T> {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl<T> Serialize for Parsed<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// Reading never fails on the text's meaning: a text that does not parse is kept with its
/// error, for [`Scenario::check`](crate::Scenario::check) to report under the field's key.
impl<'de, T: FromText> Deserialize<'de> for Parsed<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Parsed::new)
    }
}
