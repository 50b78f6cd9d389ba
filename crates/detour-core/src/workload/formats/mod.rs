//! One parser per trace format.
