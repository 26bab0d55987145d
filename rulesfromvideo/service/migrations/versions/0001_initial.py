"""Initial schema: venues, camera profiles, clips, jobs, events, append-only decisions.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "venues",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("notes", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_table(
        "camera_profiles",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("venue_id", sa.Integer, sa.ForeignKey("venues.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("width", sa.Integer, nullable=False),
        sa.Column("height", sa.Integer, nullable=False),
        sa.Column("profile_json", sa.Text, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
    )
    op.create_index("ix_camera_profiles_venue_id", "camera_profiles", ["venue_id"])
    op.create_table(
        "clips",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("uploaded", sa.Boolean, nullable=False),
        sa.Column("size_bytes", sa.Integer, nullable=False),
        sa.Column("fps", sa.Float, nullable=False),
        sa.Column("width", sa.Integer, nullable=False),
        sa.Column("height", sa.Integer, nullable=False),
        sa.Column("n_frames", sa.Integer, nullable=False),
        sa.Column("game_json", sa.Text, nullable=False),
        sa.Column("venue_id", sa.Integer, sa.ForeignKey("venues.id", ondelete="SET NULL"), nullable=True),
        sa.Column(
            "camera_profile_id",
            sa.Integer,
            sa.ForeignKey("camera_profiles.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("clip_id", sa.Integer, sa.ForeignKey("clips.id", ondelete="CASCADE"), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("progress", sa.Float, nullable=False),
        sa.Column("frames_done", sa.Integer, nullable=False),
        sa.Column("frames_total", sa.Integer, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("retry_of", sa.Integer, sa.ForeignKey("jobs.id", ondelete="SET NULL"), nullable=True),
        sa.Column("cancel_requested", sa.Boolean, nullable=False),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("heartbeat_at", TZ, nullable=True),
        sa.Column("out_dir", sa.Text, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("started_at", TZ, nullable=True),
        sa.Column("finished_at", TZ, nullable=True),
    )
    op.create_index("ix_jobs_clip_id", "jobs", ["clip_id"])
    op.create_index("ix_jobs_state", "jobs", ["state"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("job_id", sa.Integer, sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("clip_id", sa.Integer, sa.ForeignKey("clips.id", ondelete="CASCADE"), nullable=False),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("type", sa.String(40), nullable=False),
        sa.Column("t", sa.Float, nullable=False),
        sa.Column("frame", sa.Integer, nullable=False),
        sa.Column("team", sa.String(40), nullable=True),
        sa.Column("verdict", sa.String(40), nullable=False),
        sa.Column("confidence", sa.Float, nullable=True),
        sa.Column("margin_m", sa.Float, nullable=True),
        sa.Column("rule", sa.String(80), nullable=True),
        sa.Column("evidence_json", sa.Text, nullable=False),
        sa.UniqueConstraint("job_id", "idx", name="uq_events_job_idx"),
    )
    op.create_index("ix_events_job_id", "events", ["job_id"])
    op.create_index("ix_events_clip_id", "events", ["clip_id"])
    op.create_table(
        "decisions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("decision", sa.String(20), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("judge", sa.String(200), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("decision IN ('confirm', 'overturn', 'inconclusive')", name="ck_decisions_decision"),
    )
    op.create_index("ix_decisions_event_id", "decisions", ["event_id"])

    # The audit trail is append-only in the database itself, not just in the API.
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER decisions_no_{verb.lower()} BEFORE {verb} ON decisions "
                "BEGIN SELECT RAISE(ABORT, 'decisions are append-only'); END"
            )
    elif dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION decisions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "BEGIN RAISE EXCEPTION 'decisions are append-only'; END $$"
        )
        op.execute(
            "CREATE TRIGGER decisions_append_only BEFORE UPDATE OR DELETE ON decisions "
            "FOR EACH ROW EXECUTE FUNCTION decisions_append_only()"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS decisions_no_update")
        op.execute("DROP TRIGGER IF EXISTS decisions_no_delete")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS decisions_append_only ON decisions")
        op.execute("DROP FUNCTION IF EXISTS decisions_append_only()")
    for table in ("decisions", "events", "jobs", "clips", "camera_profiles", "venues"):
        op.drop_table(table)
