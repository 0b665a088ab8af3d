import Foundation

/// A bounded hand-over from one producing thread to one consuming thread: `put` waits while `capacity` items wait,
/// `take` waits for items and returns all of them at once (one wake-up for a burst), or nil once closed and drained.
final class HandOver<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var isClosed = false
    private let capacity: Int

    /// - Parameter capacity: How many items may wait before `put` waits too.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Adds an item, waiting while the hand-over is full.
    func put(_ item: Item) {
        condition.lock()
        while items.count >= capacity { condition.wait() }
        items.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// No more items will come.
    func close() {
        condition.lock()
        isClosed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Every item waiting (waits for at least one), or nil when closed and nothing is left.
    func take() -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !isClosed { condition.wait() }
        guard !items.isEmpty else { return nil }
        let taken = items
        items.removeAll(keepingCapacity: true)
        condition.broadcast()
        return taken
    }
}
