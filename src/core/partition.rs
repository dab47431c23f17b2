//! Partitioning a device into sub-devices (OpenCL 3.0 §4.3, `clCreateSubDevices`).
//!
//! Contract: a device's compute units are its host threads ([`Device::host_threads`]); a
//! partition gives each sub-device a contiguous, disjoint share of them, in order, so two
//! sub-devices of one partition never run work-groups on the same emulator thread and their
//! launches proceed side by side (a launch's helper threads are keyed by the share's first
//! thread and size). Sub-devices share their root's memory, so buffers, programs and events
//! move freely between the devices of a context.
//!
//! Schemes: `CL_DEVICE_PARTITION_EQUALLY` and `CL_DEVICE_PARTITION_BY_COUNTS`. A device with
//! fewer than two threads cannot be partitioned ([`max_sub_devices`] is 0), and a partition
//! whose only sub-device would be the whole device fails: it would not partition anything.
//! Affinity domains are not offered: the threads of one host share every cache level the
//! emulator could name.

use super::device::Device;
use crate::cl::object::{Obj, Ref};
use crate::cl::{cl_device_partition_property, CL_DEVICE_PARTITION_BY_COUNTS, CL_DEVICE_PARTITION_EQUALLY};

/// A partition request, already read from the application's property list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scheme {
    /// `CL_DEVICE_PARTITION_EQUALLY`: as many sub-devices of `n` threads as fit.
    Equally(i64),
    /// `CL_DEVICE_PARTITION_BY_COUNTS`: one sub-device per count, in order.
    ByCounts(Vec<i64>),
}

/// Why a partition cannot be made (each is one OpenCL error code, chosen by the `api` layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionError {
    /// An invalid value in the request (`CL_INVALID_VALUE`): `Equally(0)`.
    Invalid,
    /// Counts that do not fit the device (`CL_INVALID_DEVICE_PARTITION_COUNT`): a negative
    /// count, more sub-devices than [`max_sub_devices`], or more threads than the device has.
    Count,
    /// The device cannot be partitioned further (`CL_DEVICE_PARTITION_FAILED`).
    Failed,
}

/// `CL_DEVICE_PARTITION_MAX_SUB_DEVICES`: one per thread, 0 when there is only one.
pub fn max_sub_devices(d: &Device) -> usize {
    if d.host_threads >= 2 {
        d.host_threads
    } else {
        0
    }
}

/// `CL_DEVICE_PARTITION_PROPERTIES`: the schemes offered (`[0]` when none is).
pub fn properties(d: &Device) -> Vec<cl_device_partition_property> {
    if max_sub_devices(d) == 0 {
        vec![0]
    } else {
        vec![CL_DEVICE_PARTITION_EQUALLY as _, CL_DEVICE_PARTITION_BY_COUNTS as _]
    }
}

/// The thread count of each sub-device `scheme` makes of `d`, in order.
pub fn plan(d: &Device, scheme: &Scheme) -> Result<Vec<usize>, PartitionError> {
    let total = d.host_threads;
    let sizes = match scheme {
        Scheme::Equally(n) => {
            if *n == 0 {
                return Err(PartitionError::Invalid);
            }
            let n = usize::try_from(*n).map_err(|_| PartitionError::Count)?;
            if n > total {
                return Err(PartitionError::Count);
            }
            vec![n; total / n]
        }
        Scheme::ByCounts(counts) => {
            let mut sizes = Vec::with_capacity(counts.len());
            for &c in counts {
                sizes.push(usize::try_from(c).map_err(|_| PartitionError::Count)?);
            }
            let sum = sizes.iter().try_fold(0usize, |a, &b| a.checked_add(b));
            if sizes.is_empty()
                || sizes.contains(&0)
                || sizes.len() > max_sub_devices(d).max(1)
                || sum.is_none_or(|s| s > total)
            {
                return Err(PartitionError::Count);
            }
            sizes
        }
    };
    if max_sub_devices(d) == 0 || sizes == [total] {
        return Err(PartitionError::Failed);
    }
    Ok(sizes)
}

/// Creates the sub-devices of `parent` for `sizes` (from [`plan`]), each reporting
/// `properties` as its `CL_DEVICE_PARTITION_TYPE`.
pub fn create(parent: &Ref<Device>, sizes: &[usize], properties: &[cl_device_partition_property]) -> Vec<Ref<Device>> {
    let mut offset = 0;
    sizes
        .iter()
        .map(|&n| {
            let d = Obj::new(Device::sub_device(parent, offset, n, properties.to_vec()));
            offset += n;
            d
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(threads: usize) -> Device {
        Device { host_threads: threads, ..Device::new() }
    }

    #[test]
    fn equally_makes_as_many_as_fit() {
        assert_eq!(plan(&device(4), &Scheme::Equally(1)), Ok(vec![1; 4]));
        assert_eq!(plan(&device(5), &Scheme::Equally(2)), Ok(vec![2, 2]));
        assert_eq!(plan(&device(4), &Scheme::Equally(3)), Ok(vec![3]));
        assert_eq!(plan(&device(4), &Scheme::Equally(4)), Err(PartitionError::Failed));
        assert_eq!(plan(&device(4), &Scheme::Equally(5)), Err(PartitionError::Count));
        assert_eq!(plan(&device(4), &Scheme::Equally(-1)), Err(PartitionError::Count));
        assert_eq!(plan(&device(4), &Scheme::Equally(0)), Err(PartitionError::Invalid));
    }

    #[test]
    fn by_counts_checks_every_count_and_the_sum() {
        assert_eq!(plan(&device(4), &Scheme::ByCounts(vec![1, 3])), Ok(vec![1, 3]));
        assert_eq!(plan(&device(4), &Scheme::ByCounts(vec![2])), Ok(vec![2]));
        assert_eq!(plan(&device(4), &Scheme::ByCounts(vec![4])), Err(PartitionError::Failed));
        assert_eq!(plan(&device(4), &Scheme::ByCounts(vec![2, 3])), Err(PartitionError::Count));
        assert_eq!(plan(&device(4), &Scheme::ByCounts(vec![5])), Err(PartitionError::Count));
        assert_eq!(plan(&device(4), &Scheme::ByCounts(vec![-1])), Err(PartitionError::Count));
        assert_eq!(plan(&device(4), &Scheme::ByCounts(vec![])), Err(PartitionError::Count));
        assert_eq!(plan(&device(4), &Scheme::ByCounts(vec![1; 5])), Err(PartitionError::Count));
    }

    #[test]
    fn one_thread_cannot_be_partitioned() {
        assert_eq!(max_sub_devices(&device(1)), 0);
        assert_eq!(properties(&device(1)), vec![0]);
        assert_eq!(plan(&device(1), &Scheme::Equally(1)), Err(PartitionError::Failed));
        assert_eq!(plan(&device(1), &Scheme::ByCounts(vec![1])), Err(PartitionError::Failed));
        assert_eq!(properties(&device(2)).len(), 2);
    }

    #[test]
    fn shares_are_contiguous_and_nest() {
        let root = Obj::new(device(8));
        let subs = create(&root, &[3, 5], &[CL_DEVICE_PARTITION_BY_COUNTS as _, 3, 5, 0, 0]);
        assert_eq!(subs.iter().map(|d| (d.first_thread, d.host_threads)).collect::<Vec<_>>(), [(0, 3), (3, 5)]);
        let inner = create(&subs[1], &[2, 2], &[CL_DEVICE_PARTITION_EQUALLY as _, 2, 0]);
        assert_eq!(inner.iter().map(|d| (d.first_thread, d.host_threads)).collect::<Vec<_>>(), [(3, 2), (5, 2)]);
        assert!(inner.iter().all(|d| std::sync::Arc::ptr_eq(&d.memory, &root.memory)));
        assert!(std::sync::Arc::ptr_eq(&inner[0].partition.as_ref().unwrap().parent, &subs[1]));
        assert_eq!(inner[1].launch_threads(0), (2, 5));
        assert_eq!(inner[1].launch_threads(7), (2, 5));
        assert_eq!(inner[1].launch_threads(1), (1, 5));
    }
}
