//! The relay's MCP settings: `webterm_mcp.json` in the state directory, and the MCP and admin
//! tokens (broker contract, "Secrets and realms" and "Persistence").
//!
//! File shape: `{enabled, token, admin_token, default_mode, allow_launch}`, written atomically
//! (temporary file + rename) with mode 0600. A token set in the environment
//! ([`crate::ground::config::MCP_TOKEN_ENV`], [`crate::ground::config::MCP_ADMIN_TOKEN_ENV`]) wins over the file and is never written to it.
//! Defaults, until the user changes them: `enabled:false`, `default_mode:"off"`,
//! `allow_launch:false`, no tokens.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::window::Mode;
use crate::ground::config::EnvTokens;
use crate::ground::limits::MAX_SETTINGS_FILE_BYTES;
use crate::ground::secret::Secret;

/// Name of the settings file in the state directory.
pub const SETTINGS_FILE: &str = "webterm_mcp.json";

/// The settings as stored in [`SETTINGS_FILE`] (tokens from the environment are not here).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSettings {
    /// MCP access switched on.
    pub enabled: bool,
    /// The MCP token kept in the file.
    pub token: Option<Secret>,
    /// The admin token kept in the file.
    pub admin_token: Option<Secret>,
    /// The mode of windows that have none of their own.
    pub default_mode: Mode,
    /// Whether `/mcp/launch` may start windows.
    pub allow_launch: bool,
}

impl Default for StoredSettings {
    fn default() -> Self {
        StoredSettings {
            enabled: false,
            token: None,
            admin_token: None,
            default_mode: Mode::Off,
            allow_launch: false,
        }
    }
}

#[derive(Serialize)]
struct OnDisk<'a> {
    enabled: bool,
    token: Option<&'a str>,
    admin_token: Option<&'a str>,
    default_mode: Mode,
    allow_launch: bool,
}

impl StoredSettings {
    /// The file's bytes (pretty JSON).
    pub fn to_json(&self) -> Vec<u8> {
        let disk = OnDisk {
            enabled: self.enabled,
            token: self.token.as_ref().map(Secret::expose),
            admin_token: self.admin_token.as_ref().map(Secret::expose),
            default_mode: self.default_mode,
            allow_launch: self.allow_launch,
        };
        serde_json::to_vec_pretty(&disk).unwrap_or_default()
    }

    /// Parses the file's bytes. A field that is missing or unusable keeps its default (logged
    /// once, without its value); bytes that are not a JSON object give the defaults.
    pub fn from_json(bytes: &[u8]) -> Result<StoredSettings, &'static str> {
        let value: Value = serde_json::from_slice(bytes).map_err(|_| "not JSON")?;
        let obj = value.as_object().ok_or("not a JSON object")?;
        let mut s = StoredSettings::default();
        let mut bad = Vec::new();
        let mut boolean = |key: &'static str, slot: &mut bool| match obj.get(key) {
            None => {}
            Some(Value::Bool(b)) => *slot = *b,
            Some(_) => bad.push(key),
        };
        boolean("enabled", &mut s.enabled);
        boolean("allow_launch", &mut s.allow_launch);
        match obj.get("default_mode") {
            None => {}
            Some(v) => match v.as_str().and_then(|m| m.parse().ok()) {
                Some(m) => s.default_mode = m,
                None => bad.push("default_mode"),
            },
        }
        for (key, slot) in [("token", &mut s.token), ("admin_token", &mut s.admin_token)] {
            match obj.get(key) {
                None | Some(Value::Null) => {}
                Some(v) => match v.as_str().map(Secret::configured) {
                    Some(Ok(t)) => *slot = Some(t),
                    _ => bad.push(key),
                },
            }
        }
        if !bad.is_empty() {
            tracing::warn!(fields = ?bad, "unusable fields in {SETTINGS_FILE}; using their defaults");
        }
        Ok(s)
    }
}

/// The settings in force: the stored ones with the environment's tokens on top.
#[derive(Debug, Clone)]
pub struct Settings {
    /// What the file holds.
    pub stored: StoredSettings,
    /// What the environment pins.
    pub env: EnvTokens,
}

impl Settings {
    /// The MCP token in force: the environment's, else the file's.
    pub fn token(&self) -> Option<&Secret> {
        self.env.token.as_ref().or(self.stored.token.as_ref())
    }

    /// The admin token in force: the environment's, else the file's.
    pub fn admin_token(&self) -> Option<&Secret> {
        self.env
            .admin_token
            .as_ref()
            .or(self.stored.admin_token.as_ref())
    }

    /// Ladder step 1: MCP is switched on and has a token.
    pub fn mcp_open(&self) -> bool {
        self.stored.enabled && self.token().is_some()
    }
}

/// The settings file's path in `state_dir`.
pub fn settings_path(state_dir: &Path) -> PathBuf {
    state_dir.join(SETTINGS_FILE)
}

/// Loads [`SETTINGS_FILE`]: missing → defaults; unreadable, oversized or corrupt → defaults and
/// one warning (MCP stays off until the user turns it on again).
pub fn load(state_dir: &Path) -> StoredSettings {
    let path = settings_path(state_dir);
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return StoredSettings::default(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the MCP settings; MCP stays off");
            return StoredSettings::default();
        }
    };
    if meta.len() > MAX_SETTINGS_FILE_BYTES {
        tracing::warn!(path = %path.display(), "the MCP settings file is too large; ignored, MCP stays off");
        return StoredSettings::default();
    }
    match std::fs::read(&path)
        .map_err(|_| "unreadable")
        .and_then(|b| StoredSettings::from_json(&b))
    {
        Ok(s) => s,
        Err(why) => {
            tracing::warn!(path = %path.display(), why, "the MCP settings file is corrupt; ignored, MCP stays off");
            StoredSettings::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::config::{MCP_ADMIN_TOKEN_ENV, MCP_TOKEN_ENV};
    use crate::ground::secret::SecretError;
    use std::ffi::OsString;

    #[test]
    fn defaults_are_closed() {
        let s = StoredSettings::default();
        assert!(!s.enabled && !s.allow_launch && s.token.is_none());
        assert_eq!(s.default_mode, Mode::Off);
        let settings = Settings {
            stored: StoredSettings { enabled: true, ..s },
            env: EnvTokens::default(),
        };
        assert!(!settings.mcp_open(), "no token, no MCP");
    }

    #[test]
    fn round_trip_and_bad_fields() {
        let s = StoredSettings {
            enabled: true,
            token: Some(Secret::new("stored-token").unwrap()),
            admin_token: None,
            default_mode: Mode::Read,
            allow_launch: true,
        };
        assert_eq!(StoredSettings::from_json(&s.to_json()), Ok(s));
        let partial = StoredSettings::from_json(
            br#"{"enabled":"yes","default_mode":"write","token":"a b","allow_launch":true}"#,
        )
        .unwrap();
        assert_eq!(
            partial,
            StoredSettings {
                allow_launch: true,
                ..StoredSettings::default()
            }
        );
        assert!(StoredSettings::from_json(b"[]").is_err());
        assert!(StoredSettings::from_json(b"{").is_err());
    }

    #[test]
    fn env_tokens_win() {
        let env = |k: &str| (k == MCP_TOKEN_ENV).then(|| OsString::from("from-env-token"));
        let settings = Settings {
            stored: StoredSettings {
                enabled: true,
                token: Some(Secret::new("from-file").unwrap()),
                ..StoredSettings::default()
            },
            env: EnvTokens::resolve(env).unwrap(),
        };
        assert!(settings.token().unwrap().matches(b"from-env-token"));
        assert!(settings.admin_token().is_none());
        let bad = |k: &str| (k == MCP_ADMIN_TOKEN_ENV).then(|| OsString::from("x y"));
        let err = EnvTokens::resolve(bad).unwrap_err();
        assert_eq!(err.name, MCP_ADMIN_TOKEN_ENV);
        assert!(!err.to_string().contains("x y"));
        let short = |k: &str| (k == MCP_TOKEN_ENV).then(|| OsString::from("short"));
        assert_eq!(
            EnvTokens::resolve(short).unwrap_err().error,
            SecretError::TooShort
        );
    }
}
