//! The static allocation order's value (`ftl.order`): its letters, how
//! it is written and read. How it places a page is the device's
//! (`AllocOrder::plane_for` in device/geometry.rs).

use crate::error::{Error, Result};

/// A static allocation order (`ftl.order`): which of channel (C),
/// way/chip (W), die (D) and plane (P) varies fastest as the LPN grows.
/// "CWDP" stripes consecutive LPNs over channels first, then chips, dies
/// and planes. In TOML it is that four-letter string (either case; written
/// out in capitals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocOrder(pub(crate) [u8; 4]);

const LETTERS: &[u8; 4] = b"CWDP";

impl Default for AllocOrder {
    fn default() -> Self {
        AllocOrder::CWDP
    }
}

impl AllocOrder {
    /// Channel first: the default, and the benchmark device's order.
    pub const CWDP: AllocOrder = AllocOrder([0, 1, 2, 3]);

    pub fn parse(s: &str) -> Result<AllocOrder> {
        s.parse().map_err(|why| Error::config("ftl.order", why))
    }
}

impl std::str::FromStr for AllocOrder {
    /// Why the text is no order, without the key: the config builder adds
    /// the key from the TOML path, `parse` names it itself.
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<AllocOrder, String> {
        let valid = "valid: a permutation of C, W, D, P (e.g. CWDP)";
        let b = s.as_bytes();
        if b.len() != 4 {
            return Err(format!("`{s}` is not four letters; {valid}"));
        }
        let mut seen = [false; 4];
        let mut out = [0u8; 4];
        for (i, c) in b.iter().enumerate() {
            let Some(k) = LETTERS.iter().position(|l| l.eq_ignore_ascii_case(c)) else {
                return Err(format!("`{s}` has a letter other than C, W, D, P; {valid}"));
            };
            if seen[k] {
                return Err(format!("`{s}` repeats a letter; {valid}"));
            }
            seen[k] = true;
            out[i] = k as u8;
        }
        Ok(AllocOrder(out))
    }
}

impl std::fmt::Display for AllocOrder {
    // Capitals whatever the input's case, so equal orders print alike.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write;
        self.0.iter().try_for_each(|&k| f.write_char(LETTERS[k as usize] as char))
    }
}

impl serde::Serialize for AllocOrder {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for AllocOrder {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<AllocOrder, D::Error> {
        struct Letters;
        impl serde::de::Visitor<'_> for Letters {
            type Value = AllocOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a permutation of C, W, D, P such as \"CWDP\"")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<AllocOrder, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Letters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_orders() {
        assert!(AllocOrder::parse("CWD").is_err());
        assert!(AllocOrder::parse("CCDP").is_err());
        assert!(AllocOrder::parse("pdwc").is_ok());
        assert!(AllocOrder::parse("CWDX").unwrap_err().to_string().contains("ftl.order"));
    }

    #[test]
    fn orders_round_trip_through_their_letters() {
        for text in ["CWDP", "PDWC", "WCDP", "DPCW"] {
            let o: AllocOrder = text.parse().unwrap();
            assert_eq!(o.to_string(), text);
        }
        assert_eq!("pdwc".parse::<AllocOrder>().unwrap().to_string(), "PDWC");
        assert_eq!(AllocOrder::default().to_string(), "CWDP");
    }
}
