/// A value handed to other threads whose caller keeps them from using it at once: the parts of a parallel load
/// writing disjoint pieces of one buffer, the transport's loops calling one callback under a lock. The one home for
/// that promise, so each use says how it is kept.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
