//! The closed-set settings: a misspelt value is refused naming its dotted
//! key and every valid spelling, and each valid one reads back from the
//! config echo unchanged (sweeps key their runs by that echo).

use super::*;

fn build(key: &str, value: &str) -> crate::Result<Config> {
    ConfigBuilder::from_preset("small")?.set(key, value)?.build()
}

/// Every closed-set setting: its key, the spellings it takes, and one it
/// refuses.
const CLOSED: &[(&str, &[&str], &str)] = &[
    ("ftl.allocation", &["static", "dynamic"], "greedy"),
    ("host.address", &["strict", "fold"], "wrap"),
    ("device.flash.cell", &["slc", "mlc", "tlc", "qlc", "custom"], "plc"),
    ("ftl.precondition.span", &["device", "footprint"], "trace"),
];

#[test]
fn a_bad_value_is_refused_naming_its_key_and_the_valid_ones() {
    for (key, valid, bad) in CLOSED {
        let e = build(key, bad).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(bad), "{e}");
        for v in *valid {
            assert!(e.contains(&format!("`{v}`")), "{key}: {e}");
        }
    }
}

/// The echo prints a setting as it was spelt, and reads back to the same config.
#[test]
fn good_values_round_trip_through_the_echo() {
    for (key, valid, _) in CLOSED {
        let leaf = key.rsplit('.').next().unwrap();
        for v in *valid {
            let cfg = build(key, v).unwrap();
            let text = cfg.to_toml_string();
            assert!(text.contains(&format!("{leaf} = \"{v}\"")), "{key}={v}:\n{text}");
            assert_eq!(Config::from_toml_str(&text).unwrap(), cfg, "{key}={v}");
        }
    }
}

#[test]
fn the_order_is_read_and_written_as_its_letters() {
    for order in ["CWDP", "PDWC", "WCDP", "DPCW"] {
        let cfg = build("ftl.order", order).unwrap();
        let text = cfg.to_toml_string();
        assert!(text.contains(&format!("order = \"{order}\"")), "{text}");
        assert_eq!(Config::from_toml_str(&text).unwrap(), cfg);
    }
    assert_eq!(build("ftl.order", "pdwc").unwrap().ftl.order, build("ftl.order", "PDWC").unwrap().ftl.order);
    for (bad, why) in
        [("CWD", "not four letters"), ("CCDP", "repeats a letter"), ("CWDX", "other than C, W, D, P"), ("4", "permutation of C, W, D, P")]
    {
        let e = build("ftl.order", bad).unwrap_err().to_string();
        assert!(e.contains("ftl.order") && e.contains(why), "{bad}: {e}");
    }
}
