//! Parsing component specs written on the command line: `name`, `name:VALUE` or
//! `name:key=value,key=value`.

use std::fmt;

/// A configuration error: an unknown component name, a bad parameter. The message names what was
/// wrong and what is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl ConfigError {
    /// A new error with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        ConfigError(msg.into())
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// A parsed component spec: `name[:args]`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ComponentSpec<'a> {
    /// The component's name, e.g. `load-based`.
    pub name: &'a str,
    /// Positional value (`load-based:1.2` gives `Some("1.2")`), if the argument has no `=`.
    pub value: Option<&'a str>,
    /// `key=value` parameters, in the order written.
    pub params: Vec<(&'a str, &'a str)>,
}

impl<'a> ComponentSpec<'a> {
    /// Split `name:args`. `kind` names the role for error messages (e.g. "policy").
    pub fn parse(s: &'a str, kind: &str) -> Result<Self, ConfigError> {
        let s = s.trim();
        let (name, rest) = match s.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r.trim())),
            None => (s, None),
        };
        if name.is_empty() {
            return Err(ConfigError::new(format!("empty {kind} name in `{s}`")));
        }
        let mut spec = ComponentSpec {
            name,
            value: None,
            params: Vec::new(),
        };
        if let Some(rest) = rest {
            if rest.is_empty() {
                return Err(ConfigError::new(format!("`{s}`: nothing after `:`")));
            }
            if !rest.contains('=') {
                spec.value = Some(rest);
            } else {
                for kv in rest.split(',') {
                    let (k, v) = kv.split_once('=').ok_or_else(|| {
                        ConfigError::new(format!(
                            "{kind} `{name}`: parameter `{kv}` is not key=value"
                        ))
                    })?;
                    spec.params.push((k.trim(), v.trim()));
                }
            }
        }
        Ok(spec)
    }

    /// Error unless the spec has no arguments.
    pub fn no_args(&self, kind: &str) -> Result<(), ConfigError> {
        if self.value.is_some() || !self.params.is_empty() {
            return Err(ConfigError::new(format!(
                "{kind} `{}` takes no parameters",
                self.name
            )));
        }
        Ok(())
    }
}

/// Parse a float parameter, naming it in the error.
pub fn parse_f64(what: &str, v: &str) -> Result<f64, ConfigError> {
    v.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| ConfigError::new(format!("{what}: `{v}` is not a finite number")))
}
