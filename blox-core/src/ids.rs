//! Identifiers.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into dense tables.
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl From<u32> for $name {
            fn from(v: u32) -> Self {
                $name(v)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// A job's id: dense, given in **admission order** from 0, exactly as Blox numbers jobs
    /// ("blox id"). Ties between jobs break by the lowest id everywhere in the toolkit.
    JobId
);
id_type!(
    /// A GPU's id: dense and global over the cluster; node `k`'s GPUs are a contiguous range,
    /// numbered in node order.
    GpuId
);
id_type!(
    /// A node's id: dense, in the order the nodes were described.
    NodeId
);
id_type!(
    /// A GPU type's id: dense, in the order the types first appear in the cluster's node list
    /// (see [`crate::Cluster::gpu_type_name`]).
    GpuTypeId
);
