import TetherKit

/// What a test records for a report: one issue per drifted or failed target, and one when nothing was checked.
public enum ContractIssues {
    /// The issue texts for `report`, in target order: each drifted or failed target's console lines (its name, then
    /// its findings or the transport error), then why nothing was checked, if so. Empty when the report passes.
    /// - Parameter report: A finished verification.
    /// - Returns: One text per issue to record.
    public static func messages(for report: ContractReport) -> [String] {
        var messages = report.failures.map { report.text(for: $0) }
        if let reason = report.nothingCheckedReason, report.failures.isEmpty { messages.append(reason) }
        return messages
    }
}
