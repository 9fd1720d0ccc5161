// Package prefault maps memory in before its first use: one system call
// for a whole range instead of one page fault for each page.
//
// A page fault is cheap on bare metal, but on a virtual machine each one can
// cost several microseconds of the hypervisor's time, and a build touches
// hundreds of thousands of fresh pages: the records' buffers (a gigabyte at
// the default memory limit) and the mapped CSV. On the 2-core VM csvidx was
// last measured on, mapping them in ahead this way took a two-thread build of
// 100M rows from 3.1-4.4 s of system time to 1.4-1.6 s, and a one-thread
// build from 2.9-3.3 s to 0.9 s.
//
// Both functions are hints: where the system cannot do it (not Linux, or a
// kernel before 5.14), they do nothing, and the pages fault in as they are
// touched. They never change the memory's contents.
package prefault
