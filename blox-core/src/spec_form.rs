//! One grammar for a component's configuration: the command line's `name:key=value,...` text
//! is read and written through the component's serde form (the `{ kind = "name", key = value }`
//! table of scenario files), so a configuration type declares its names, parameters and
//! defaults once, in its serde derive, and gets both forms from it.
//!
//! A configuration type is an internally tagged enum (`#[serde(tag = "kind")]`). On the command
//! line every value is text, so each field that is not a string reads text through one of the
//! [`field`] helpers (`#[serde(deserialize_with = "blox_core::spec_form::field::f64")]`); in
//! files the same helpers take the native value. Lists are written `a/b/c` (`none` for an empty
//! list). A variant whose one field has no default takes it positionally (`load-based:1.2`).
//!
//! ```
//! use blox_core::spec_form;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! #[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
//! enum MyPolicy {
//!     Fifo {},
//!     Aged {
//!         #[serde(default = "hour", deserialize_with = "spec_form::field::f64")]
//!         threshold: f64,
//!     },
//! }
//! fn hour() -> f64 {
//!     3600.0
//! }
//!
//! let p: MyPolicy = spec_form::read("aged:threshold=60", "policy").unwrap();
//! assert_eq!(p, MyPolicy::Aged { threshold: 60.0 });
//! assert_eq!(spec_form::write(&p, "policy"), "aged:threshold=60");
//! // Parameters at their defaults are left out of the text.
//! let d: MyPolicy = spec_form::read("aged", "policy").unwrap();
//! assert_eq!(spec_form::write(&d, "policy"), "aged");
//! assert_eq!(spec_form::kinds::<MyPolicy>(), ["fifo", "aged"]);
//! let e = spec_form::read::<MyPolicy>("aged:t=1", "policy").unwrap_err().to_string();
//! assert_eq!(e, "policy `aged`: unknown parameter `t` (expected: threshold)");
//! ```

use crate::{ComponentSpec, ConfigError};
use serde::de::DeserializeOwned;
use serde::ser::{self, Impossible, Serialize};
use std::fmt;

/// What went wrong while reading or writing the text form (the serde error type of both).
#[derive(Debug)]
enum SpecError {
    UnknownVariant(String, &'static [&'static str]),
    UnknownField(String, &'static [&'static str]),
    MissingField(&'static str),
    Custom(String),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::UnknownVariant(v, expected) => {
                write!(f, "`{v}` is not one of: {}", expected.join(", "))
            }
            SpecError::UnknownField(k, expected) => {
                write!(
                    f,
                    "unknown parameter `{k}` (expected: {})",
                    expected.join(", ")
                )
            }
            SpecError::MissingField(k) => write!(f, "parameter `{k}` is required"),
            SpecError::Custom(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SpecError {}

impl serde::de::Error for SpecError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SpecError::Custom(msg.to_string())
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        SpecError::UnknownVariant(variant.to_string(), expected)
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        SpecError::UnknownField(field.to_string(), expected)
    }
    fn missing_field(field: &'static str) -> Self {
        SpecError::MissingField(field)
    }
}

impl ser::Error for SpecError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SpecError::Custom(msg.to_string())
    }
}

/// Deserialize `T` from a table of text values.
fn from_pairs<T: DeserializeOwned>(pairs: Vec<(String, String)>) -> Result<T, SpecError> {
    let de = serde::de::value::MapDeserializer::<_, SpecError>::new(pairs.into_iter());
    T::deserialize(de)
}

fn pairs(kind: &str, params: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut p = vec![("kind".to_string(), kind.to_string())];
    p.extend(params.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    p
}

/// The kinds `T` accepts, in declaration order, without the aliases (a kind that reads as a
/// value written under another kind).
pub fn kinds<T: Serialize + DeserializeOwned>() -> Vec<&'static str> {
    all_kinds::<T>()
        .iter()
        .copied()
        .filter(|k| match from_pairs::<T>(pairs(k, &[])) {
            Ok(v) => table(&v).is_ok_and(|(kind, _)| kind == *k),
            Err(_) => true,
        })
        .collect()
}

/// The kinds `T` accepts, aliases included.
fn all_kinds<T: DeserializeOwned>() -> &'static [&'static str] {
    match from_pairs::<T>(pairs("\u{0}", &[])) {
        Err(SpecError::UnknownVariant(_, expected)) => expected,
        _ => &[],
    }
}

/// The parameters kind `kind` of `T` accepts, in declaration order.
pub fn fields<T: DeserializeOwned>(kind: &str) -> Vec<&'static str> {
    match from_pairs::<T>(pairs(kind, &[("\u{0}", "")])) {
        Err(SpecError::UnknownField(_, expected)) => expected.to_vec(),
        _ => Vec::new(),
    }
}

/// Read `s` (`name`, `name:VALUE` or `name:key=value,...`) as a `T`; `role` names the
/// component in errors (`policy`, `placement`, …). The errors say what was wrong and what is
/// accepted, generated from `T`'s serde form.
pub fn read<T: Serialize + DeserializeOwned>(s: &str, role: &str) -> Result<T, ConfigError> {
    read_spec(&ComponentSpec::parse(s, role)?, role)
}

/// [`read`] for a spec already split (what a registered component's builder is given).
pub fn read_spec<T: Serialize + DeserializeOwned>(
    spec: &ComponentSpec<'_>,
    role: &str,
) -> Result<T, ConfigError> {
    let name = spec.name;
    let err = |m: String| ConfigError::new(format!("{role} `{name}`: {m}"));
    for (i, (k, _)) in spec.params.iter().enumerate() {
        if spec.params[..i].iter().any(|(seen, _)| seen == k) {
            return Err(err(format!("parameter `{k}` given twice")));
        }
    }
    let mut params = spec.params.clone();
    if let Some(v) = spec.value {
        // A positional value is the (first) field without a default.
        let fields = fields::<T>(name);
        match from_pairs::<T>(pairs(name, &[])) {
            Err(SpecError::MissingField(f)) => params.push((f, v)),
            Err(SpecError::UnknownVariant(..)) => {}
            _ if fields.is_empty() => {
                return Err(ConfigError::new(format!(
                    "{role} `{name}` takes no parameters"
                )))
            }
            _ => {
                return Err(err(format!(
                    "`{v}` is not key=value (parameters: {})",
                    fields.join(", ")
                )))
            }
        }
    }
    from_pairs::<T>(pairs(name, &params)).map_err(|e| match e {
        SpecError::UnknownVariant(v, _) if v == name => ConfigError::new(format!(
            "unknown {role} `{name}` (expected one of: {})",
            kinds::<T>().join(", ")
        )),
        SpecError::UnknownField(_, []) => {
            ConfigError::new(format!("{role} `{name}` takes no parameters"))
        }
        e => {
            let m = e.to_string();
            // Name the parameter whose value (or list item) the message quotes first.
            let quoted = m.split('`').nth(1).filter(|q| !q.is_empty());
            match params.iter().find(|(_, v)| {
                quoted.is_some_and(|q| *v == q || v.split('/').any(|x| x.trim() == q))
            }) {
                Some((k, _)) => ConfigError::new(format!("{role} `{name}`, parameter `{k}`: {m}")),
                None => err(m),
            }
        }
    })
}

/// The text form of `value`: its kind, then the parameters that differ from the kind's
/// defaults as `key=value` in declaration order (a kind whose one field has no default shows
/// it positionally, `load-based:1.2`). [`read`] reads it back to the same value.
///
/// # Panics
/// If `T` does not serialize as a `kind`-tagged table of plain values (a bug in `T`).
pub fn write<T: Serialize + DeserializeOwned>(value: &T, role: &str) -> String {
    let (kind, values) =
        table(value).unwrap_or_else(|e| panic!("{role}: no `name:key=value` form: {e}"));
    let defaults: Option<Fields> = from_pairs::<T>(pairs(&kind, &[]))
        .ok()
        .and_then(|d| table(&d).ok())
        .map(|(_, f)| f);
    let shown: Vec<&(&'static str, String)> = values
        .iter()
        .filter(|(k, v)| {
            defaults
                .as_ref()
                .map_or(true, |d| !d.iter().any(|(dk, dv)| dk == k && dv == v))
        })
        .collect();
    let mut out = kind.clone();
    if defaults.is_none() && shown.len() == 1 && fields::<T>(&kind).len() == 1 {
        out.push(':');
        out.push_str(&shown[0].1);
        return out;
    }
    for (i, (k, v)) in shown.iter().enumerate() {
        out.push(if i == 0 { ':' } else { ',' });
        out.push_str(k);
        out.push('=');
        out.push_str(v);
    }
    out
}

/// `(field, text)` pairs, in declaration order.
type Fields = Vec<(&'static str, String)>;

/// The kind and the `(field, text)` pairs `value` serializes to (fields that are `None` left
/// out).
fn table<T: Serialize>(value: &T) -> Result<(String, Fields), SpecError> {
    let mut t = Table::default();
    value.serialize(&mut t)?;
    let kind = t
        .kind
        .ok_or_else(|| SpecError::Custom("no `kind`".into()))?;
    Ok((kind, t.fields))
}

#[derive(Default)]
struct Table {
    kind: Option<String>,
    fields: Vec<(&'static str, String)>,
}

fn unsupported(what: &str) -> SpecError {
    SpecError::Custom(format!("a {what} has no `name:key=value` form"))
}

impl ser::Serializer for &mut Table {
    type Ok = ();
    type Error = SpecError;
    type SerializeSeq = Impossible<(), SpecError>;
    type SerializeTuple = Impossible<(), SpecError>;
    type SerializeTupleStruct = Impossible<(), SpecError>;
    type SerializeTupleVariant = Impossible<(), SpecError>;
    type SerializeMap = Impossible<(), SpecError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), SpecError>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, SpecError> {
        Ok(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_i64(self, _: i64) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_u64(self, _: u64) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_f64(self, _: f64) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_i8(self, v: i8) -> Result<(), SpecError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), SpecError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), SpecError> {
        self.serialize_i64(v.into())
    }
    fn serialize_u8(self, v: u8) -> Result<(), SpecError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), SpecError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), SpecError> {
        self.serialize_u64(v.into())
    }
    fn serialize_f32(self, v: f32) -> Result<(), SpecError> {
        self.serialize_f64(v.into())
    }
    fn serialize_char(self, _: char) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_str(self, _: &str) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), SpecError> {
        Err(unsupported("byte string"))
    }
    fn serialize_none(self) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_some<V: Serialize + ?Sized>(self, _: &V) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_unit(self) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), SpecError> {
        Err(unsupported("bare value"))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), SpecError> {
        Err(unsupported("untagged enum"))
    }
    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &V,
    ) -> Result<(), SpecError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<(), SpecError> {
        Err(unsupported("untagged enum"))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, SpecError> {
        Err(unsupported("list"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, SpecError> {
        Err(unsupported("tuple"))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, SpecError> {
        Err(unsupported("tuple"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, SpecError> {
        Err(unsupported("tuple"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, SpecError> {
        Err(unsupported("map"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, SpecError> {
        Err(unsupported("untagged enum"))
    }
}

impl ser::SerializeStruct for &mut Table {
    type Ok = ();
    type Error = SpecError;
    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), SpecError> {
        let Some(text) = value.serialize(Text)? else {
            return Ok(());
        };
        if key == "kind" && self.kind.is_none() {
            self.kind = Some(text);
        } else {
            self.fields.push((key, text));
        }
        Ok(())
    }
    fn end(self) -> Result<(), SpecError> {
        Ok(())
    }
}

/// A field's value as text (`None` for a `None`).
struct Text;

/// A list's items, joined with `/`.
struct ListText(Vec<String>);

impl ser::Serializer for Text {
    type Ok = Option<String>;
    type Error = SpecError;
    type SerializeSeq = ListText;
    type SerializeTuple = ListText;
    type SerializeTupleStruct = Impossible<Option<String>, SpecError>;
    type SerializeTupleVariant = Impossible<Option<String>, SpecError>;
    type SerializeMap = Impossible<Option<String>, SpecError>;
    type SerializeStruct = Impossible<Option<String>, SpecError>;
    type SerializeStructVariant = Impossible<Option<String>, SpecError>;

    fn serialize_bool(self, v: bool) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_i8(self, v: i8) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_i16(self, v: i16) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_i32(self, v: i32) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_i64(self, v: i64) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_u8(self, v: u8) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_u16(self, v: u16) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_u32(self, v: u32) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_u64(self, v: u64) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_f32(self, v: f32) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_f64(self, v: f64) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_char(self, v: char) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Option<String>, SpecError> {
        Ok(Some(v.to_string()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Option<String>, SpecError> {
        Err(unsupported("byte string"))
    }
    fn serialize_none(self) -> Result<Option<String>, SpecError> {
        Ok(None)
    }
    fn serialize_some<V: Serialize + ?Sized>(self, v: &V) -> Result<Option<String>, SpecError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Option<String>, SpecError> {
        Ok(None)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Option<String>, SpecError> {
        Ok(None)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Option<String>, SpecError> {
        Ok(Some(variant.to_string()))
    }
    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &V,
    ) -> Result<Option<String>, SpecError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<Option<String>, SpecError> {
        Err(unsupported("nested enum"))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<ListText, SpecError> {
        Ok(ListText(Vec::new()))
    }
    fn serialize_tuple(self, _: usize) -> Result<ListText, SpecError> {
        Ok(ListText(Vec::new()))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, SpecError> {
        Err(unsupported("tuple struct"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, SpecError> {
        Err(unsupported("nested enum"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, SpecError> {
        Err(unsupported("nested table"))
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, SpecError> {
        Err(unsupported("nested table"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, SpecError> {
        Err(unsupported("nested enum"))
    }
}

impl ListText {
    fn push<V: Serialize + ?Sized>(&mut self, v: &V) -> Result<(), SpecError> {
        match v.serialize(Text)? {
            Some(t) if !t.contains('/') && t != "none" => {
                self.0.push(t);
                Ok(())
            }
            Some(t) => Err(SpecError::Custom(format!(
                "list item `{t}` cannot be written in a `/`-separated list"
            ))),
            None => Err(unsupported("missing list item")),
        }
    }
    fn finish(self) -> Option<String> {
        Some(if self.0.is_empty() {
            "none".to_string()
        } else {
            self.0.join("/")
        })
    }
}

impl ser::SerializeSeq for ListText {
    type Ok = Option<String>;
    type Error = SpecError;
    fn serialize_element<V: Serialize + ?Sized>(&mut self, v: &V) -> Result<(), SpecError> {
        self.push(v)
    }
    fn end(self) -> Result<Option<String>, SpecError> {
        Ok(self.finish())
    }
}

impl ser::SerializeTuple for ListText {
    type Ok = Option<String>;
    type Error = SpecError;
    fn serialize_element<V: Serialize + ?Sized>(&mut self, v: &V) -> Result<(), SpecError> {
        self.push(v)
    }
    fn end(self) -> Result<Option<String>, SpecError> {
        Ok(self.finish())
    }
}

/// Field helpers for `#[serde(deserialize_with = "...")]`: each reads its type from text (the
/// command line's form) as well as from the native value a file holds.
pub mod field {
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use std::fmt;

    fn text_bool(v: &str) -> Option<bool> {
        match v.trim() {
            "true" | "yes" | "on" | "1" => Some(true),
            "false" | "no" | "off" | "0" => Some(false),
            _ => None,
        }
    }

    fn text_f64(v: &str) -> Option<f64> {
        v.trim().parse::<f64>().ok().filter(|x| x.is_finite())
    }

    struct Bool;
    impl Visitor<'_> for Bool {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("true or false")
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
            Ok(v)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
            match v {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(E::custom(format!("`{v}` is not a boolean (true or false)"))),
            }
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
            text_bool(v).ok_or_else(|| E::custom(format!("`{v}` is not a boolean (true or false)")))
        }
    }

    /// A boolean: `true`/`yes`/`on`/`1` or `false`/`no`/`off`/`0`.
    pub fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        d.deserialize_any(Bool)
    }

    #[derive(Clone, Copy)]
    struct F64;
    impl Visitor<'_> for F64 {
        type Value = f64;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a finite number")
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
            if v.is_finite() {
                Ok(v)
            } else {
                Err(E::custom(format!("`{v}` is not a finite number")))
            }
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
            text_f64(v).ok_or_else(|| E::custom(format!("`{v}` is not a finite number")))
        }
    }

    /// A finite number.
    pub fn f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        d.deserialize_any(F64)
    }

    /// `Option` of what `V` reads: `None` for a missing value, JSON's `null` or the text
    /// `none`.
    #[derive(Clone, Copy)]
    struct Opt<V>(V);
    impl<'de, V: Visitor<'de> + Copy> Visitor<'de> for Opt<V> {
        type Value = Option<V::Value>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.expecting(f)?;
            f.write_str(" or none")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            self.0.visit_f64(v).map(Some)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            self.0.visit_u64(v).map(Some)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            self.0.visit_i64(v).map(Some)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v.trim() == "none" {
                return Ok(None);
            }
            self.0.visit_str(v).map(Some)
        }
    }

    /// An optional finite number (`none` or a missing field: `None`); for a field with
    /// `#[serde(default)]`.
    pub fn opt_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        d.deserialize_any(Opt(F64))
    }

    #[derive(Clone, Copy)]
    struct U32;
    impl Visitor<'_> for U32 {
        type Value = u32;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a whole number")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
            u32::try_from(v).map_err(|_| E::custom(format!("`{v}` is too large")))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
            u32::try_from(v).map_err(|_| E::custom(format!("`{v}` is not a whole number")))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<u32, E> {
            Err(E::custom(format!("`{v}` is not a whole number")))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<u32, E> {
            v.trim()
                .parse::<u32>()
                .map_err(|_| E::custom(format!("`{v}` is not a whole number")))
        }
    }

    /// A whole number from 0 to 2³²−1.
    pub fn u32<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        d.deserialize_any(U32)
    }

    /// An optional `u32` (`none`: `None`); for a field with `#[serde(default)]`.
    pub fn opt_u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        d.deserialize_any(Opt(U32))
    }

    struct List;
    impl<'de> Visitor<'de> for List {
        type Value = Vec<f64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of numbers (`a/b/c` on the command line, `none` for no items)")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f64>, A::Error> {
            struct Item(f64);
            impl<'de> de::Deserialize<'de> for Item {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Item, D::Error> {
                    f64(d).map(Item)
                }
            }
            let mut out = Vec::new();
            while let Some(Item(x)) = seq.next_element()? {
                out.push(x);
            }
            Ok(out)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Vec<f64>, E> {
            F64.visit_f64(v).map(|x| vec![x])
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<f64>, E> {
            F64.visit_u64(v).map(|x| vec![x])
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<f64>, E> {
            F64.visit_i64(v).map(|x| vec![x])
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<f64>, E> {
            let t = v.trim();
            if t.is_empty() || t == "none" {
                return Ok(Vec::new());
            }
            t.split('/').map(|x| F64.visit_str(x)).collect()
        }
    }

    /// A list of finite numbers: an array in files, `a/b/c` on the command line (`none` or
    /// nothing for an empty list); a single number is a list of one.
    pub fn f64_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        d.deserialize_any(List)
    }

    /// A value read by its type's `FromStr` (in files too, from a string): for a field whose
    /// type has a text form with aliases or hints of its own.
    pub fn from_str<'de, D, T>(d: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: std::str::FromStr,
        T::Err: fmt::Display,
    {
        let text = <std::borrow::Cow<'de, str> as de::Deserialize>::deserialize(d)?;
        text.parse().map_err(de::Error::custom)
    }

    /// An optional [`f64_list`]; for a field with `#[serde(default)]`.
    pub fn opt_f64_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<f64>>, D::Error> {
        f64_list(d).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
    enum Cfg {
        Plain {},
        #[serde(alias = "other-name")]
        Flags {
            #[serde(default = "yes", deserialize_with = "field::bool")]
            on: bool,
            #[serde(
                default,
                deserialize_with = "field::opt_f64",
                skip_serializing_if = "Option::is_none"
            )]
            limit: Option<f64>,
            #[serde(default, deserialize_with = "field::f64_list")]
            steps: Vec<f64>,
        },
        Needs {
            #[serde(deserialize_with = "field::u32")]
            count: u32,
        },
    }
    fn yes() -> bool {
        true
    }

    #[test]
    fn reads_and_writes_every_form() {
        let r = |s: &str| read::<Cfg>(s, "thing");
        assert_eq!(r("plain").unwrap(), Cfg::Plain {});
        assert_eq!(
            r(" flags : on=no, limit=2.5 ,steps=1/2").unwrap(),
            Cfg::Flags {
                on: false,
                limit: Some(2.5),
                steps: vec![1.0, 2.0]
            }
        );
        assert_eq!(r("other-name").unwrap(), r("flags").unwrap());
        assert_eq!(r("needs:7").unwrap(), Cfg::Needs { count: 7 });
        assert_eq!(r("needs:count=7").unwrap(), Cfg::Needs { count: 7 });
        for (text, shown) in [
            ("plain", "plain"),
            ("flags", "flags"),
            ("flags:steps=none,limit=none", "flags"),
            ("flags:steps=3,on=false", "flags:on=false,steps=3"),
            ("needs:count=7", "needs:7"),
        ] {
            let v = r(text).unwrap();
            let w = write(&v, "thing");
            assert_eq!(w, shown);
            assert_eq!(r(&w).unwrap(), v, "{w}");
        }
        let e = |s: &str| r(s).unwrap_err().to_string();
        assert_eq!(
            e("plan"),
            "unknown thing `plan` (expected one of: plain, flags, needs)"
        );
        assert_eq!(e("plain:x=1"), "thing `plain` takes no parameters");
        assert_eq!(e("plain:1"), "thing `plain` takes no parameters");
        assert_eq!(
            e("flags:2"),
            "thing `flags`: `2` is not key=value (parameters: on, limit, steps)"
        );
        assert_eq!(
            e("flags:on=1,on=0"),
            "thing `flags`: parameter `on` given twice"
        );
        assert_eq!(
            e("flags:on=maybe"),
            "thing `flags`, parameter `on`: `maybe` is not a boolean (true or false)"
        );
        assert_eq!(
            e("flags:steps=1/x"),
            "thing `flags`, parameter `steps`: `x` is not a finite number"
        );
        assert_eq!(e("needs"), "thing `needs`: parameter `count` is required");
        assert_eq!(
            e("needs:-1"),
            "thing `needs`, parameter `count`: `-1` is not a whole number"
        );
        assert_eq!(kinds::<Cfg>(), ["plain", "flags", "needs"]);
        assert_eq!(fields::<Cfg>("flags"), ["on", "limit", "steps"]);
    }
}
