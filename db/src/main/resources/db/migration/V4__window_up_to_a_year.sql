-- Fixed windows up to envoyproxy/ratelimit's longest unit, its YEAR of 365 days (it was 31 days), so that
-- every limit of an imported envoyproxy/ratelimit configuration can be stored as it was written.
ALTER TABLE rules DROP CONSTRAINT rules_window_s_check;
ALTER TABLE rules ADD CONSTRAINT rules_window_s_check CHECK (window_s BETWEEN 1 AND 31536000);
