"""What a run tells its user: the stderr table, GitHub Actions' summary and annotations, the policy verdict."""
